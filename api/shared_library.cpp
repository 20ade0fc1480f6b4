// libtilejit.so is the DSL, codegen, runtime and host API libraries linked whole
// (cmake/install.cmake); CMake wants a source file of its own for the target.
