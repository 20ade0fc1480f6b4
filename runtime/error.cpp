#include "runtime/error.h"

namespace tj::rt {

const char* to_string(ErrorKind kind) {
  switch (kind) {
  case ErrorKind::NoDriver: return "no-driver";
  case ErrorKind::Compile: return "compile";
  case ErrorKind::Launch: return "launch";
  case ErrorKind::Device: return "device";
  case ErrorKind::Usage: return "usage";
  case ErrorKind::Io: return "io";
  }
  return "unknown";
}

RuntimeError::RuntimeError(ErrorKind kind, std::string msg)
    : std::runtime_error(std::move(msg)), kind_(kind) {}

} // namespace tj::rt
