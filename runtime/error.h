// Errors raised by the runtime. The kind tells the CLI which exit code to use
// (NoDriver 3, Compile 4, Launch/Device 5, Usage/Io 2); the message is for people.
#pragma once

#include <stdexcept>
#include <string>

namespace tj::rt {

enum class ErrorKind { NoDriver, Compile, Launch, Device, Usage, Io };

// "no-driver", "compile", ...: for logs and test output.
const char* to_string(ErrorKind kind);

class RuntimeError : public std::runtime_error {
public:
  RuntimeError(ErrorKind kind, std::string msg);
  ErrorKind kind() const { return kind_; }

private:
  ErrorKind kind_;
};

} // namespace tj::rt
