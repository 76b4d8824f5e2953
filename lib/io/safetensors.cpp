#include "lib/io/safetensors.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "lib/base/check.h"
#include "lib/io/atomic_file.h"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "safetensors data is little-endian and is copied as is");

namespace xtrain {
namespace {

using nlohmann::json;

// Python's safetensors refuses headers above 100 MB; a real one is a few hundred KB.
constexpr uint64_t kMaxHeaderBytes = 100'000'000;

struct DTypeInfo {
  DType dtype;
  const char* name;
  size_t size;
};

constexpr DTypeInfo kDTypes[] = {
    {DType::kBool, "BOOL", 1}, {DType::kU8, "U8", 1},   {DType::kI8, "I8", 1},
    {DType::kI16, "I16", 2},   {DType::kU16, "U16", 2}, {DType::kF16, "F16", 2},
    {DType::kBF16, "BF16", 2}, {DType::kI32, "I32", 4}, {DType::kU32, "U32", 4},
    {DType::kF32, "F32", 4},   {DType::kI64, "I64", 8}, {DType::kU64, "U64", 8},
    {DType::kF64, "F64", 8},
};

const DTypeInfo& info_of(DType dtype) {
  for (const DTypeInfo& info : kDTypes) {
    if (info.dtype == dtype) return info;
  }
  throw_error(__FILE__, __LINE__, "unknown DType");
}

// One header entry, checked; offsets are into the data region.
struct Entry {
  std::string name;
  DType dtype;
  std::vector<int64_t> shape;
  uint64_t begin, end;
};

// Parses the header, rejecting a key that appears twice at the top level (nlohmann would keep
// the last one silently, and two readers could then disagree about the file).
json parse_header(const std::string& text, const std::string& source) {
  std::set<std::string> keys;
  std::string duplicate;
  const json::parser_callback_t note_duplicates = [&](int depth, json::parse_event_t event,
                                                      json& parsed) {
    if (depth == 1 && event == json::parse_event_t::key &&
        !keys.insert(parsed.get<std::string>()).second) {
      duplicate = parsed.get<std::string>();
    }
    return true;
  };
  json header;
  try {
    header = json::parse(text, note_duplicates);
  } catch (const json::exception& e) {
    throw_error(__FILE__, __LINE__,
                fmt::format("{}: the header is not valid JSON: {}", source, e.what()));
  }
  XTRAIN_CHECK(header.is_object(), "{}: the header is not a JSON object", source);
  XTRAIN_CHECK(duplicate.empty(), "{}: the header names {} twice", source, duplicate);
  return header;
}

std::map<std::string, std::string> parse_metadata(const json& metadata, const std::string& source) {
  XTRAIN_CHECK(metadata.is_object(), "{}: __metadata__ is not a JSON object", source);
  std::map<std::string, std::string> out;
  for (const auto& [key, value] : metadata.items()) {
    XTRAIN_CHECK(value.is_string(), "{}: __metadata__ {} is not a string", source, key);
    out[key] = value.get<std::string>();
  }
  return out;
}

// A non-negative integer that fits int64 (JSON parses those as unsigned).
uint64_t parse_count(const json& value, const std::string& what, const std::string& source) {
  XTRAIN_CHECK(value.is_number_unsigned() && value.get<uint64_t>() <= INT64_MAX,
               "{}: {} is {}, not a non-negative integer", source, what, value.dump());
  return value.get<uint64_t>();
}

Entry parse_entry(const std::string& name, const json& value, uint64_t data_size,
                  const std::string& source) {
  XTRAIN_CHECK(value.is_object(), "{}: tensor {} is not a JSON object", source, name);
  for (const char* field : {"dtype", "shape", "data_offsets"}) {
    XTRAIN_CHECK(value.contains(field), "{}: tensor {} has no {}", source, name, field);
  }
  Entry e{name, DType::kF32, {}, 0, 0};

  const json& dtype = value.at("dtype");
  XTRAIN_CHECK(dtype.is_string(), "{}: tensor {}: dtype is not a string", source, name);
  const DTypeInfo* info = nullptr;
  for (const DTypeInfo& candidate : kDTypes) {
    if (dtype.get<std::string>() == candidate.name) info = &candidate;
  }
  XTRAIN_CHECK(info != nullptr, "{}: tensor {}: unknown dtype {}", source, name, dtype.dump());
  e.dtype = info->dtype;

  const json& shape = value.at("shape");
  XTRAIN_CHECK(shape.is_array(), "{}: tensor {}: shape is not an array", source, name);
  for (const json& dim : shape) {
    e.shape.push_back(static_cast<int64_t>(
        parse_count(dim, fmt::format("a dimension of tensor {}", name), source)));
  }
  // The bytes must fit the data region, so a shape whose product passes its size is absurd;
  // checking before each factor also keeps the product from overflowing.
  uint64_t bytes = info->size;
  if (std::find(e.shape.begin(), e.shape.end(), 0) != e.shape.end()) {
    bytes = 0;
  } else {
    for (int64_t d : e.shape) {
      XTRAIN_CHECK(static_cast<uint64_t>(d) <= data_size / bytes,
                   "{}: tensor {}: shape {} needs more than the {} bytes of the data region "
                   "(truncated or corrupt)",
                   source, name, shape.dump(), data_size);
      bytes *= static_cast<uint64_t>(d);
    }
  }

  const json& offsets = value.at("data_offsets");
  XTRAIN_CHECK(offsets.is_array() && offsets.size() == 2,
               "{}: tensor {}: data_offsets is not an array [begin, end]", source, name);
  e.begin = parse_count(offsets[0], fmt::format("the begin offset of tensor {}", name), source);
  e.end = parse_count(offsets[1], fmt::format("the end offset of tensor {}", name), source);
  XTRAIN_CHECK(e.begin <= e.end && e.end <= data_size,
               "{}: tensor {}: data_offsets [{}, {}] lie outside the data region [0, {}]", source,
               name, e.begin, e.end, data_size);
  XTRAIN_CHECK(e.end - e.begin == bytes,
               "{}: tensor {}: {} {} takes {} bytes but data_offsets [{}, {}] span {}", source,
               name, info->name, shape.dump(), bytes, e.begin, e.end, e.end - e.begin);
  return e;
}

// Tensors must tile the data region exactly: no overlap (two tensors sharing bytes), no gap
// (bytes no tensor owns), nothing after the last one.
void check_tiling(std::vector<Entry>& entries, uint64_t data_size, const std::string& source) {
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  uint64_t covered = 0;
  const Entry* previous = nullptr;
  for (const Entry& e : entries) {
    XTRAIN_CHECK(e.begin >= covered, "{}: tensors {} and {} overlap in the data region", source,
                 previous ? previous->name : "", e.name);
    XTRAIN_CHECK(e.begin == covered, "{}: data bytes [{}, {}) belong to no tensor", source, covered,
                 e.begin);
    covered = e.end;
    previous = &e;
  }
  XTRAIN_CHECK(covered == data_size, "{}: data bytes [{}, {}) belong to no tensor", source, covered,
               data_size);
}

void read_exactly(std::istream& in, void* out, uint64_t size, const std::string& what,
                  const std::string& source) {
  in.read(static_cast<char*>(out), static_cast<std::streamsize>(size));
  XTRAIN_CHECK(in && static_cast<uint64_t>(in.gcount()) == size, "{}: cannot read {}", source,
               what);
}

}  // namespace

const char* dtype_name(DType dtype) { return info_of(dtype).name; }
size_t dtype_size(DType dtype) { return info_of(dtype).size; }

Safetensors read_safetensors(const std::string& path) {
  XTRAIN_CHECK(!std::filesystem::is_directory(path), "{} is a folder, not a safetensors file",
               path);
  std::ifstream in(path, std::ios::binary);
  XTRAIN_CHECK(in.is_open(), "cannot open {}", path);
  return read_safetensors(in, path);
}

Safetensors read_safetensors(std::istream& in, const std::string& source) {
  in.seekg(0, std::ios::end);
  const std::streamoff end = in.tellg();
  in.seekg(0, std::ios::beg);
  XTRAIN_CHECK(in && end >= 0, "{}: cannot read the file's size", source);
  const uint64_t file_size = static_cast<uint64_t>(end);
  XTRAIN_CHECK(file_size >= 8, "{}: truncated: {} bytes, less than the 8-byte header length",
               source, file_size);

  uint8_t length_bytes[8];
  read_exactly(in, length_bytes, 8, "the header length", source);
  uint64_t header_size = 0;
  for (int i = 7; i >= 0; --i) header_size = header_size << 8 | length_bytes[i];
  XTRAIN_CHECK(header_size <= file_size - 8,
               "{}: truncated or corrupt: the header length {} runs past the end of the file "
               "({} bytes)",
               source, header_size, file_size);
  XTRAIN_CHECK(header_size <= kMaxHeaderBytes, "{}: the header length {} exceeds the {} allowed",
               source, header_size, kMaxHeaderBytes);

  std::string text(header_size, '\0');
  read_exactly(in, text.data(), header_size, "the header", source);
  const json header = parse_header(text, source);

  const uint64_t data_size = file_size - 8 - header_size;
  Safetensors file;
  std::vector<Entry> entries;
  for (const auto& [key, value] : header.items()) {
    if (key == "__metadata__") {
      file.metadata = parse_metadata(value, source);
    } else {
      entries.push_back(parse_entry(key, value, data_size, source));
    }
  }
  check_tiling(entries, data_size, source);

  // Entries are sorted by offset now, so the data is read front to back.
  for (const Entry& e : entries) {
    SafeTensor& t = file.tensors[e.name];
    t.dtype = e.dtype;
    t.shape = e.shape;
    t.data.resize(e.end - e.begin);
    read_exactly(in, t.data.data(), t.data.size(), "tensor " + e.name, source);
  }
  return file;
}

void write_safetensors(const std::string& path, const Safetensors& file) {
  std::vector<const std::pair<const std::string, SafeTensor>*> order;
  for (const auto& item : file.tensors) order.push_back(&item);
  std::stable_sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
    return dtype_size(a->second.dtype) > dtype_size(b->second.dtype);
  });

  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!file.metadata.empty()) header["__metadata__"] = file.metadata;
  uint64_t offset = 0;
  for (const auto* item : order) {
    const auto& [name, t] = *item;
    XTRAIN_CHECK(name != "__metadata__", "cannot write {}: __metadata__ is not a tensor name",
                 path);
    int64_t numel = 1;
    for (int64_t d : t.shape) numel *= d;
    XTRAIN_CHECK(t.data.size() == static_cast<uint64_t>(numel) * dtype_size(t.dtype),
                 "cannot write {}: tensor {} holds {} bytes, its shape needs {}", path, name,
                 t.data.size(), numel * dtype_size(t.dtype));
    header[name] = {{"dtype", dtype_name(t.dtype)},
                    {"shape", t.shape},
                    {"data_offsets", {offset, offset + t.data.size()}}};
    offset += t.data.size();
  }
  std::string text;
  try {
    text = header.dump();
  } catch (const nlohmann::ordered_json::exception& e) {  // JSON strings must be UTF-8
    throw_error(__FILE__, __LINE__,
                fmt::format("cannot write {}: a name or metadata value is not UTF-8 text: {}", path,
                            e.what()));
  }
  // Spaces pad the header so that the data region starts 8-byte aligned.
  text.append((8 - text.size() % 8) % 8, ' ');

  uint8_t length_bytes[8];
  for (int i = 0; i < 8; ++i) length_bytes[i] = static_cast<uint8_t>(text.size() >> (8 * i));
  AtomicFile out(path);
  out.write(length_bytes, 8);
  out.write(text);
  for (const auto* item : order) out.write(item->second.data.data(), item->second.data.size());
  out.commit();
}

}  // namespace xtrain
