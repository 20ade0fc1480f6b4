// Device memory, owned. Allocates in the current context (keep a Context alive).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include <cuda.h>

namespace tj::rt {

class DeviceBuffer {
public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t bytes); // zero bytes allocates nothing; ptr() is then 0
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  CUdeviceptr ptr() const { return ptr_; }
  size_t bytes() const { return bytes_; }

  // Copies `bytes` (at most bytes()) from the host to the start of the buffer.
  void upload(const void* src, size_t bytes);
  // Copies `bytes` (at most bytes()) from the start of the buffer to the host.
  void download(void* dst, size_t bytes) const;
  void fill_u8(uint8_t value);
  // The same, ordered on `stream` (before the work queued on it after this call).
  void fill_u8_async(uint8_t value, CUstream stream);

  template <class T>
  void upload(const std::vector<T>& values) {
    static_assert(std::is_trivially_copyable_v<T>);
    upload(values.data(), values.size() * sizeof(T));
  }

  // The whole buffer as bytes()/sizeof(T) values.
  template <class T>
  std::vector<T> download_as() const {
    static_assert(std::is_trivially_copyable_v<T>);
    std::vector<T> values(bytes_ / sizeof(T));
    download(values.data(), values.size() * sizeof(T));
    return values;
  }

private:
  CUdeviceptr ptr_ = 0;
  size_t bytes_ = 0;
};

} // namespace tj::rt
