#include "lib/train/status_line.h"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cmath>

namespace xtrain {
namespace {

constexpr const char* kEraseLine = "\r\033[K";  // to the line's start, clear to its end

// The terminal's width in columns; 80 when it does not say.
size_t terminal_columns(std::FILE* terminal) {
  winsize size{};
  return ::ioctl(fileno(terminal), TIOCGWINSZ, &size) == 0 && size.ws_col > 0 ? size.ws_col : 80;
}

}  // namespace

StatusLine::StatusLine(std::FILE* terminal, Clock::duration interval)
    : terminal_(terminal), interval_(interval) {}

void StatusLine::show(const std::string& text, Clock::time_point now) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (last_drawn_ && now - *last_drawn_ < interval_) return;
  // One column short of the width: a full line would wrap on some terminals, and "\r" would
  // then return to the second line.
  const std::string line = text.substr(0, terminal_columns(terminal_) - 1);
  std::fputs(kEraseLine, terminal_);
  std::fputs(line.c_str(), terminal_);
  std::fflush(terminal_);
  drawn_ = true;
  last_drawn_ = now;
}

void StatusLine::erase() {
  if (!drawn_) return;
  std::fputs(kEraseLine, terminal_);
  drawn_ = false;
}

void StatusLine::sink_it_(const spdlog::details::log_msg& message) {
  erase();
  spdlog::memory_buf_t formatted;
  formatter_->format(message, formatted);
  std::fwrite(formatted.data(), 1, formatted.size(), terminal_);
}

void StatusLine::flush_() {
  erase();
  std::fflush(terminal_);
}

std::string status_text(const Progress& p) {
  return fmt::format(
      "Epoch {}/{}  step {}/{}  {:.1f} images/s  data wait {:.0f}%  ETA epoch {}, run {}", p.epoch,
      p.num_epochs, p.step, p.steps_per_epoch, p.images_per_second, 100.0 * p.data_wait,
      eta_text(p.epoch_seconds_left()), eta_text(p.run_seconds_left()));
}

std::string eta_text(double seconds) {
  const auto s = static_cast<int64_t>(std::llround(std::max(0.0, seconds)));
  const int64_t days = s / 86400, hours = s / 3600 % 24, minutes = s / 60 % 60, rest = s % 60;
  if (days > 0) return fmt::format("{}d {:02d}:{:02d}:{:02d}", days, hours, minutes, rest);
  if (hours > 0) return fmt::format("{}:{:02d}:{:02d}", hours, minutes, rest);
  return fmt::format("{}:{:02d}", minutes, rest);
}

}  // namespace xtrain
