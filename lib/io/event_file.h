// TensorBoard's event file, written without TensorFlow: TFRecord framing (a little-endian
// uint64 length, its masked CRC-32C, the bytes, their masked CRC-32C) around `Event` protocol
// buffers encoded by hand (tensorflow/core/util/event.proto, framework/summary.proto). The
// first event carries file_version "brain.Event:2"; every other one a Summary of scalars
// (simple_value), which TensorBoard shows in its Scalars tab. Records are appended whole
// (append_file.h): a killed run leaves a file TensorBoard reads up to its last record.
// Not here: which scalars a run writes (lib/train/log_dir.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/io/append_file.h"

namespace xtrain {

using Scalar = std::pair<std::string, float>;  // TensorBoard tag, value

// An Event message with wall_time (seconds since the epoch) and file_version "brain.Event:2".
std::string file_version_event(double wall_time);
// An Event message with wall_time, step and a Summary holding one value per scalar.
std::string scalars_event(double wall_time, int64_t step, const std::vector<Scalar>& scalars);
// `data` framed as one TFRecord.
std::string tf_record(std::string_view data);

class EventFile {
 public:
  // Creates events.out.tfevents.<seconds, 10 digits>.<host> in `dir` (an existing folder), with
  // a numeric suffix when a file of that name exists (a run restarted within the second), and
  // writes the file_version event. Throws, leaving no file, if that write fails (a full disk).
  EventFile(const std::string& dir, double wall_time);

  // One event: the scalars at `step`, stamped with wall_time.
  void add_scalars(int64_t step, const std::vector<Scalar>& scalars, double wall_time);

  const std::string& path() const { return file_.path(); }

 private:
  AppendFile file_;
};

// Seconds since the Unix epoch, as an Event's wall_time.
double wall_time_now();

}  // namespace xtrain
