// StatusLine: a line at the bottom of a terminal that says how a run goes between its log lines
// (epoch, step, images/s, data wait, ETAs), redrawn in place ("\r", the text, "\033[K") at most
// once per interval. It is the spdlog sink that prints the log lines too: each one first erases
// the status, so log lines scroll past it unchanged, and the next show() draws it again below
// them. flush() erases it (spdlog flushes after each line, and the driver at exit, before an
// error reaches stderr). For terminals only: the driver installs it when stdout is one, so logs
// in pipes and files stay byte for byte as they were.
#pragma once

#include <spdlog/sinks/base_sink.h>

#include <chrono>
#include <cstdio>
#include <mutex>
#include <optional>
#include <string>

#include "lib/train/progress.h"

namespace xtrain {

class StatusLine : public spdlog::sinks::base_sink<std::mutex> {
 public:
  using Clock = std::chrono::steady_clock;

  explicit StatusLine(std::FILE* terminal, Clock::duration interval = std::chrono::seconds(1));

  // Draws `text` as the status, cut to the terminal's width, unless a status was drawn less than
  // the interval ago.
  void show(const std::string& text, Clock::time_point now = Clock::now());

 protected:
  void sink_it_(const spdlog::details::log_msg& message) override;
  void flush_() override;

 private:
  void erase();

  std::FILE* terminal_;
  Clock::duration interval_;
  std::optional<Clock::time_point> last_drawn_;
  bool drawn_ = false;  // the status is on the screen now
};

// "Epoch 1/18  step 40/5004  11.8 images/s  data wait 2%  ETA epoch 6:58:12, run 5d 02:11:30"
std::string status_text(const Progress& progress);

// A duration for humans: 59 -> "0:59", 3725 -> "1:02:05", 183600 -> "2d 03:00:00".
std::string eta_text(double seconds);

}  // namespace xtrain
