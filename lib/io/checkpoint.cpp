#include "lib/io/checkpoint.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>

#include "lib/base/check.h"
#include "lib/io/safetensors.h"
#include "lib/io/torch_layout.h"

namespace xtrain {
namespace {

const std::string kOptimizerPrefix = "optimizer.";
const std::string kEmaPrefix = "ema.";

// One tensor of a replica as a checkpoint holds it: where it lives here, how PyTorch sees it.
struct Slot {
  std::string name;  // the file's key
  Shape ours;        // our shape and layout
  TorchLayout layout = TorchLayout::kSame;
  float* floats = nullptr;     // parameters, buffers, optimizer state
  int64_t* counter = nullptr;  // num_batches_tracked

  DType dtype() const { return counter ? DType::kI64 : DType::kF32; }
  std::vector<int64_t> file_shape() const { return torch_shape(layout, ours); }
};

// The replica's tensors, then each optimizer state buffer's share of every parameter, then the
// model average's tensors and its update count.
std::vector<Slot> slots_of(Replica& replica, const std::vector<StateBuffer>& optimizer = {},
                           const AveragedModelState* ema = nullptr) {
  ParamStore& store = replica.store();
  const std::vector<Node>& nodes = replica.graph().nodes();
  std::vector<Slot> slots;
  std::vector<Slot> state, averaged;
  for (size_t node = 0; node < nodes.size(); ++node) {
    const int end = store.first_entry(static_cast<int>(node) + 1);
    for (int i = store.first_entry(static_cast<int>(node)); i < end; ++i) {
      const ParamEntry& e = store.entries()[i];
      Slot slot{e.name, e.spec.shape, torch_layout(*nodes[node].layer, e.spec)};
      if (e.spec.kind == ParamKind::kCounter) {
        slot.counter = store.counter(e);
      } else {
        slot.floats = store.data(e);
      }
      if (e.spec.kind == ParamKind::kParameter) {
        for (const StateBuffer& buffer : optimizer) {
          Slot s = slot;
          s.name = kOptimizerPrefix + buffer.name + "." + e.name;
          s.floats = buffer.values + e.offset;  // state mirrors the parameter buffer
          state.push_back(std::move(s));
        }
      }
      if (ema != nullptr) {
        Slot s = slot;
        s.name = kEmaPrefix + e.name;
        switch (e.spec.kind) {
          case ParamKind::kParameter:
            s.floats = ema->params + e.offset;
            break;
          case ParamKind::kBuffer:
            s.floats = ema->buffers + e.offset;
            break;
          case ParamKind::kCounter:
            s.counter = ema->counters + e.offset;
            break;
        }
        averaged.push_back(std::move(s));
      }
      slots.push_back(std::move(slot));
    }
  }
  slots.insert(slots.end(), state.begin(), state.end());
  slots.insert(slots.end(), averaged.begin(), averaged.end());
  if (ema != nullptr) {
    Slot count{kEmaPrefix + "n_averaged", Shape{}};
    count.counter = ema->n_averaged;
    slots.push_back(std::move(count));
  }
  return slots;
}

SafeTensor to_file(const Slot& slot) {
  SafeTensor t;
  t.dtype = slot.dtype();
  t.shape = slot.file_shape();
  if (slot.counter) {
    t.data.resize(sizeof(int64_t));
    std::memcpy(t.data.data(), slot.counter, sizeof(int64_t));
  } else {
    t.data.resize(slot.ours.numel() * sizeof(float));
    to_torch(slot.layout, slot.ours, slot.floats, reinterpret_cast<float*>(t.data.data()));
  }
  return t;
}

void from_file(const SafeTensor& t, const Slot& slot) {
  if (slot.counter) {
    std::memcpy(slot.counter, t.data.data(), sizeof(int64_t));
  } else {
    from_torch(slot.layout, slot.ours, reinterpret_cast<const float*>(t.data.data()), slot.floats);
  }
}

std::string shape_str(const std::vector<int64_t>& shape) {
  return fmt::format("[{}]", fmt::join(shape, ", "));
}

// "a, b, c and 12 more": long lists (another architecture's file) stay one readable line.
std::string name_list(const std::vector<std::string>& names) {
  constexpr size_t kShown = 8;
  if (names.size() <= kShown) return fmt::format("{}", fmt::join(names, ", "));
  return fmt::format("{} and {} more", fmt::join(names.begin(), names.begin() + kShown, ", "),
                     names.size() - kShown);
}

bool is_optimizer_state(const std::string& name) { return name.rfind(kOptimizerPrefix, 0) == 0; }
bool is_average(const std::string& name) { return name.rfind(kEmaPrefix, 0) == 0; }

// What a load leaves unread in the file: the optimizer's state (--pretrained), a model average
// (--pretrained, or a resume without --model_ema).
struct Unread {
  bool optimizer = false, average = false;
  bool operator()(const std::string& name) const {
    return (optimizer && is_optimizer_state(name)) || (average && is_average(name));
  }
};

// Checks that the file holds exactly the slots (the unread ones aside) with their dtypes and
// shapes, then copies every tensor in. Returns the classifier's slots skipped (those named
// classifier + ".").
std::vector<std::string> load_slots(const std::string& path, const Safetensors& file,
                                    const std::vector<Slot>& slots, const std::string& classifier,
                                    bool skip_mismatched_fc, Unread unread) {
  const auto is_fc = [prefix = classifier + "."](const std::string& name) {
    return name.rfind(prefix, 0) == 0;
  };
  std::vector<std::string> missing, unexpected, mismatched, fc_mismatched;
  std::map<std::string, const Slot*> by_name;
  for (const Slot& slot : slots) {
    by_name[slot.name] = &slot;
    const auto it = file.tensors.find(slot.name);
    if (it == file.tensors.end()) {
      missing.push_back(slot.name);
      continue;
    }
    const SafeTensor& t = it->second;
    if (t.dtype != slot.dtype() || t.shape != slot.file_shape()) {
      (is_fc(slot.name) ? fc_mismatched : mismatched)
          .push_back(fmt::format("{} is {} {} in the file, {} {} in the model", slot.name,
                                 dtype_name(t.dtype), shape_str(t.shape), dtype_name(slot.dtype()),
                                 shape_str(slot.file_shape())));
    }
  }
  for (const auto& [name, t] : file.tensors) {
    if (by_name.count(name) == 0 && !unread(name)) unexpected.push_back(name);
  }
  if (!skip_mismatched_fc) {
    mismatched.insert(mismatched.end(), fc_mismatched.begin(), fc_mismatched.end());
  }

  std::vector<std::string> problems;
  if (!missing.empty()) problems.push_back("missing keys: " + name_list(missing));
  if (!unexpected.empty()) problems.push_back("unexpected keys: " + name_list(unexpected));
  if (!mismatched.empty()) problems.push_back("mismatches: " + name_list(mismatched));
  XTRAIN_CHECK(problems.empty(), "{} does not fit the model: {}", path, fmt::join(problems, "; "));

  std::vector<std::string> skipped;
  const bool skip_fc = skip_mismatched_fc && !fc_mismatched.empty();
  for (const Slot& slot : slots) {
    if (skip_fc && is_fc(slot.name)) {
      skipped.push_back(slot.name);
    } else {
      from_file(file.tensors.at(slot.name), slot);
    }
  }
  return skipped;
}

int64_t parse_int(const std::map<std::string, std::string>& metadata, const std::string& key,
                  const std::string& path) {
  const auto it = metadata.find(key);
  XTRAIN_CHECK(it != metadata.end(), "{}: __metadata__ has no {}", path, key);
  const std::string& text = it->second;
  int64_t value = -1;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  XTRAIN_CHECK(error == std::errc() && end == text.data() + text.size() && value >= 0,
               "{}: __metadata__ {} is \"{}\", not a non-negative integer", path, key, text);
  return value;
}

// A finite number written with {:.17g}, or `absent` when the file has no such key.
double parse_number(const std::map<std::string, std::string>& metadata, const std::string& key,
                    const std::string& path, double absent) {
  const auto it = metadata.find(key);
  if (it == metadata.end()) return absent;
  const std::string& text = it->second;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  XTRAIN_CHECK(end == text.c_str() + text.size() && std::isfinite(value),
               "{}: __metadata__ {} is \"{}\", not a number", path, key, text);
  return value;
}

Safetensors file_of(const std::vector<Slot>& slots, const CheckpointInfo& info) {
  Safetensors file;
  for (const Slot& slot : slots) file.tensors[slot.name] = to_file(slot);
  file.metadata = {{"format_version", std::to_string(kCheckpointFormatVersion)},
                   {"model", info.model},
                   {"epoch", std::to_string(info.epoch)},
                   {"global_step", std::to_string(info.global_step)},
                   {"flags", info.flags},
                   {"best_top1", fmt::format("{:.17g}", info.best_top1)},
                   {"precision", info.precision},
                   {"run_seconds", fmt::format("{:.17g}", info.run_seconds)},
                   {"top1_milestones", milestones_json(info.top1_milestones)}};
  return file;
}

}  // namespace

void save_checkpoint(const std::string& path, Replica& replica,
                     const std::vector<StateBuffer>& optimizer, const CheckpointInfo& info,
                     const AveragedModelState* ema) {
  write_safetensors(path, file_of(slots_of(replica, optimizer, ema), info));
}

void save_model(const std::string& path, Replica& replica, const CheckpointInfo& info) {
  write_safetensors(path, file_of(slots_of(replica), info));
}

CheckpointInfo load_checkpoint(const std::string& path, Replica& replica,
                               const std::vector<StateBuffer>& optimizer, const std::string& model,
                               const AveragedModelState* ema) {
  const Safetensors file = read_safetensors(path);
  const bool has_optimizer_state =
      std::any_of(file.tensors.begin(), file.tensors.end(),
                  [](const auto& tensor) { return is_optimizer_state(tensor.first); });
  XTRAIN_CHECK(has_optimizer_state,
               "{} holds a model's weights alone, no optimizer state: to go on with a run, resume "
               "from its checkpoint-last.safetensors; to start from these weights, pass them as "
               "--pretrained",
               path);
  const auto& metadata = file.metadata;
  XTRAIN_CHECK(metadata.count("format_version") > 0,
               "{}: not an xtrain checkpoint (no format_version in __metadata__)", path);
  const int64_t version = parse_int(metadata, "format_version", path);
  XTRAIN_CHECK(version == kCheckpointFormatVersion,
               "{}: checkpoint format version {}, this build reads version {}", path, version,
               kCheckpointFormatVersion);
  CheckpointInfo info;
  info.epoch = parse_int(metadata, "epoch", path);
  info.global_step = parse_int(metadata, "global_step", path);
  for (const char* key : {"model", "flags"}) {
    XTRAIN_CHECK(metadata.count(key) > 0, "{}: __metadata__ has no {}", path, key);
  }
  info.model = metadata.at("model");
  XTRAIN_CHECK(info.model == model, "{} holds a {}, not a {}", path, info.model, model);
  info.flags = metadata.at("flags");
  if (metadata.count("precision") > 0) info.precision = metadata.at("precision");
  info.best_top1 = parse_number(metadata, "best_top1", path, 0.0);
  info.run_seconds = parse_number(metadata, "run_seconds", path, 0.0);
  XTRAIN_CHECK(info.run_seconds >= 0.0, "{}: __metadata__ run_seconds is negative", path);
  if (metadata.count("top1_milestones") > 0) {
    info.top1_milestones = parse_milestones(metadata.at("top1_milestones"), path);
  }

  XTRAIN_CHECK(ema == nullptr || file.tensors.count(kEmaPrefix + "n_averaged") > 0,
               "{} holds no model EMA (it was saved without --model_ema): resume it without "
               "--model_ema",
               path);
  load_slots(path, file, slots_of(replica, optimizer, ema), replica.graph().classifier(),
             /*skip_mismatched_fc=*/false, Unread{/*optimizer=*/false, /*average=*/ema == nullptr});
  return info;
}

std::vector<std::string> load_pretrained(const std::string& path, Replica& replica,
                                         bool skip_mismatched_fc) {
  return load_slots(path, read_safetensors(path), slots_of(replica), replica.graph().classifier(),
                    skip_mismatched_fc, Unread{/*optimizer=*/true, /*average=*/true});
}

}  // namespace xtrain
