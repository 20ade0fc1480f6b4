#include "runtime/buffer.h"

#include <string>
#include <utility>

#include "runtime/driver.h"

namespace tj::rt {

namespace {

void check_size(size_t requested, size_t available, const char* what) {
  if (requested > available)
    throw RuntimeError(ErrorKind::Usage, std::string(what) + " of " + std::to_string(requested) +
                                             " bytes does not fit a device buffer of " +
                                             std::to_string(available) + " bytes");
}

} // namespace

DeviceBuffer::DeviceBuffer(size_t bytes) : bytes_(bytes) {
  if (!bytes) return;
  if (CUresult r = driver().cuMemAlloc(&ptr_, bytes); r != CUDA_SUCCESS)
    throw driver_error(r, "cuMemAlloc", {}, "Allocating " + std::to_string(bytes) + " bytes");
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_) driver().cuMemFree(ptr_); // cannot throw here; a failed free leaks only
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : ptr_(std::exchange(other.ptr_, 0)), bytes_(std::exchange(other.bytes_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    DeviceBuffer old(std::move(*this));
    ptr_ = std::exchange(other.ptr_, 0);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void DeviceBuffer::upload(const void* src, size_t bytes) {
  check_size(bytes, bytes_, "an upload");
  if (bytes) check(driver().cuMemcpyHtoD(ptr_, src, bytes), "cuMemcpyHtoD");
}

void DeviceBuffer::download(void* dst, size_t bytes) const {
  check_size(bytes, bytes_, "a download");
  if (bytes) check(driver().cuMemcpyDtoH(dst, ptr_, bytes), "cuMemcpyDtoH");
}

void DeviceBuffer::fill_u8(uint8_t value) {
  if (bytes_) check(driver().cuMemsetD8(ptr_, value, bytes_), "cuMemsetD8");
}

void DeviceBuffer::fill_u8_async(uint8_t value, CUstream stream) {
  if (bytes_) check(driver().cuMemsetD8Async(ptr_, value, bytes_, stream), "cuMemsetD8Async");
}

} // namespace tj::rt
