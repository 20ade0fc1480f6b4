# What `cmake --install build --prefix P` puts in P for users of the library:
#   lib/libtilejit.so          the DSL, codegen, runtime and host API (LLVM Support inside,
#                              its symbols hidden; the device prelude embedded)
#   include/tilejit/tilejit.h  the one public include, and under include/tilejit/ the
#                              dsl/, codegen/, runtime/, api/ headers it includes
#                              (and plugin.h, with the generators/ headers it includes)
#   lib/cmake/tilejit/         find_package(tilejit CONFIG) -> tilejit::tilejit
#   bin/tilejit                the CLI (cli/CMakeLists.txt), with the benches and tests
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
find_package(Threads REQUIRED)

# The objects of the DSL, codegen, runtime and host API libraries, all of them: users
# call DSL functions the host API itself never references.
add_library(tilejit_shared SHARED ${PROJECT_SOURCE_DIR}/api/shared_library.cpp
  $<TARGET_OBJECTS:tilejit_api> $<TARGET_OBJECTS:tilejit_codegen> $<TARGET_OBJECTS:tilejit_dsl>
  $<TARGET_OBJECTS:tilejit_runtime>)
set_target_properties(tilejit_shared PROPERTIES OUTPUT_NAME tilejit EXPORT_NAME tilejit
  VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
# What those libraries link (runtime/CMakeLists.txt says why NVRTC goes by its file).
target_link_libraries(tilejit_shared PRIVATE ${TILEJIT_LLVM_LIBS} ${CUDA_nvrtc_LIBRARY} ${CMAKE_DL_LIBS} Threads::Threads)
# LLVM Support stays an implementation detail: its symbols are not exported, so a user
# who links another LLVM gets no clash.
target_link_options(tilejit_shared PRIVATE "LINKER:--exclude-libs,libLLVMSupport.a:libLLVMDemangle.a")
# The library is complete (except under clang's sanitizers, whose runtime only an
# executable links).
if(NOT TILEJIT_SANITIZE AND NOT TILEJIT_FUZZ)
  target_link_options(tilejit_shared PRIVATE "LINKER:--no-undefined")
endif()
target_include_directories(tilejit_shared INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include> $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/tilejit>)
# The headers include cuda.h (the types of the driver API) and need C++20.
target_link_libraries(tilejit_shared INTERFACE CUDA::toolkit)
target_compile_features(tilejit_shared INTERFACE cxx_std_20)
add_library(tilejit::tilejit ALIAS tilejit_shared)

install(TARGETS tilejit_shared EXPORT tilejitTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_SOURCE_DIR}/include/tilejit/tilejit.h ${PROJECT_SOURCE_DIR}/include/tilejit/plugin.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tilejit)
# generators/: the generator interface and registry <tilejit/plugin.h> builds on.
foreach(dir dsl codegen runtime api generators)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${dir} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tilejit
    FILES_MATCHING PATTERN "*.h" PATTERN "*.def")
endforeach()
# The device prelude NVRTC compiles with is embedded in the library; this copy is for
# readers of generated code (it is what `#include "tilejit/prelude.cuh"` there means):
# the one flattened header (codegen/CMakeLists.txt), byte for byte the embedded text.
install(FILES ${TILEJIT_PRELUDE_FLAT} DESTINATION ${CMAKE_INSTALL_DATADIR}/tilejit)

# tilejit::plugin_api: what a plugin for `tilejit --plugin` compiles against, headers only
# (the tilejit executable that loads the plugin provides the code; include/tilejit/plugin.h).
target_include_directories(tilejit_plugin_api INTERFACE
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/tilejit>)
set_target_properties(tilejit_plugin_api PROPERTIES EXPORT_NAME plugin_api)
install(TARGETS tilejit_plugin_api EXPORT tilejitTargets)

set(TILEJIT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/tilejit)
install(EXPORT tilejitTargets NAMESPACE tilejit:: DESTINATION ${TILEJIT_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/tilejitConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/tilejitConfig.cmake INSTALL_DESTINATION ${TILEJIT_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/tilejitConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/tilejitConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/tilejitConfigVersion.cmake
  DESTINATION ${TILEJIT_CMAKE_DIR})
# The built-in samples' specs, for `tilejit compile|run` from the prefix.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/samples/specs/ DESTINATION ${CMAKE_INSTALL_DATADIR}/tilejit/specs FILES_MATCHING PATTERN "*.json")
