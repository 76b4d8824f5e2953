// CRC-32C (Castagnoli), the checksum of TFRecord files, and TensorFlow's masked form of it,
// which TFRecord stores so that a CRC of data that itself holds CRCs stays well distributed.
#pragma once

#include <cstddef>
#include <cstdint>

namespace xtrain {

// CRC-32C of n bytes: polynomial 0x1EDC6F41, reflected, initial and final XOR 0xFFFFFFFF;
// crc32c("123456789") is 0xE3069283.
uint32_t crc32c(const void* data, size_t n);

// TFRecord's masked CRC: the CRC rotated right by 15 bits plus 0xA282EAD8.
uint32_t masked_crc32c(const void* data, size_t n);

}  // namespace xtrain
