#include "lib/train/status_line.h"

#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <memory>

namespace xtrain {
namespace {

using namespace std::chrono_literals;

// A StatusLine writing into a temporary file (not a terminal: 80 columns), and its logger.
class StatusLineTest : public ::testing::Test {
 protected:
  StatusLineTest()
      : file_(std::tmpfile()),
        status_(std::make_shared<StatusLine>(file_, 1s)),
        logger_("test", status_) {
    logger_.set_pattern("%v");
  }
  ~StatusLineTest() override { std::fclose(file_); }

  std::string written() {
    std::fflush(file_);
    std::string out(static_cast<size_t>(std::ftell(file_)), '\0');
    std::rewind(file_);
    EXPECT_EQ(std::fread(out.data(), 1, out.size(), file_), out.size());
    return out;
  }

  std::FILE* file_;
  std::shared_ptr<StatusLine> status_;
  spdlog::logger logger_;
  StatusLine::Clock::time_point t0_ = StatusLine::Clock::now();
};

TEST_F(StatusLineTest, RedrawsInPlaceAtMostOncePerInterval) {
  status_->show("a", t0_);
  status_->show("b", t0_ + 999ms);  // too soon: not drawn
  status_->show("c", t0_ + 1s);
  EXPECT_EQ(written(), "\r\033[Ka\r\033[Kc");
}

TEST_F(StatusLineTest, ALogLineErasesTheStatusFirst) {
  status_->show("status", t0_);
  logger_.info("a log line");
  logger_.info("another");
  status_->show("back", t0_ + 2s);
  EXPECT_EQ(written(), "\r\033[Kstatus\r\033[Ka log line\nanother\n\r\033[Kback");
}

TEST_F(StatusLineTest, FlushErasesTheStatus) {
  status_->show("status", t0_);
  logger_.flush();
  logger_.flush();  // nothing more to erase
  EXPECT_EQ(written(), "\r\033[Kstatus\r\033[K");
}

TEST_F(StatusLineTest, CutToTheTerminalWidthLessOne) {
  status_->show(std::string(100, 'x'), t0_);
  EXPECT_EQ(written(), "\r\033[K" + std::string(79, 'x'));  // not a terminal: 80 columns
}

TEST(StatusText, SaysWhereTheRunIsAndWhenItEnds) {
  Progress p;
  p.epoch = 2;
  p.num_epochs = 3;
  p.step = 40;
  p.steps_per_epoch = 100;
  p.images_per_second = 11.84;
  p.data_wait = 0.023;
  p.seconds_per_step = 2.5;
  // Epoch: 60 steps left x 2.5 s; run: those and 100 steps of epoch 3.
  EXPECT_EQ(status_text(p),
            "Epoch 2/3  step 40/100  11.8 images/s  data wait 2%  ETA epoch 2:30, run 6:40");
}

TEST(EtaText, MinutesHoursAndDays) {
  EXPECT_EQ(eta_text(0), "0:00");
  EXPECT_EQ(eta_text(59.4), "0:59");
  EXPECT_EQ(eta_text(3725), "1:02:05");
  EXPECT_EQ(eta_text(183600), "2d 03:00:00");
  EXPECT_EQ(eta_text(-5), "0:00");
}

}  // namespace
}  // namespace xtrain
