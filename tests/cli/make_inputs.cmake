# Writes the CLI cases' inputs that git cannot hold or that are too big to commit
# (the @GEN@ placeholder of cases.txt). Run as the fixture of every cli: test.
#
#   cmake -DGEN=<folder> -P make_inputs.cmake
cmake_minimum_required(VERSION 3.24)
if(NOT DEFINED GEN OR GEN STREQUAL "")
  message(FATAL_ERROR "make_inputs.cmake: -DGEN=... is required")
endif()

# An earlier run may have left a mode-000 file; chmod it back so it can be removed.
if(EXISTS "${GEN}/unreadable.json")
  file(CHMOD "${GEN}/unreadable.json" PERMISSIONS OWNER_READ OWNER_WRITE)
endif()
file(REMOVE_RECURSE "${GEN}")
file(MAKE_DIRECTORY "${GEN}")

# 10000 levels of nesting, arrays and objects: the parser must refuse them before recursing.
string(REPEAT "[" 10000 open)
string(REPEAT "]" 10000 close)
file(WRITE "${GEN}/deep_10000_arrays.json" "{\"kernel\": \"dsmem_ring\", \"params\": {\"elems\": ${open}1${close}}}\n")
string(REPEAT "{\"a\": " 10000 open)
string(REPEAT "}" 10000 close)
file(WRITE "${GEN}/deep_10000_objects.json" "${open}1${close}\n")

# A 2 MiB spec: a valid object whose description is 2 MiB long (over the 1 MiB limit).
string(REPEAT "x" 1024 kib)
string(REPEAT "${kib}" 2048 two_mib)
file(WRITE "${GEN}/big_2mib.json" "{\"kernel\": \"dsmem_ring\", \"description\": \"${two_mib}\"}\n")

# Mode 000. Its content is a bad spec too, so even where the read succeeds (root) the case
# cannot pass by accident; run_case.cmake reads it as uid 65534 when running as root.
file(WRITE "${GEN}/unreadable.json" "{\"kernel\": \"dsmem_ring\", \"cluster\": 0}\n")
execute_process(COMMAND chmod 000 "${GEN}/unreadable.json" COMMAND_ERROR_IS_FATAL ANY)

# A symbolic link to itself: open() fails with ELOOP, for root as well.
file(CREATE_LINK "loop.json" "${GEN}/loop.json" SYMBOLIC)

# A regular file, so that "${GEN}/regular_file/x" is a path under a regular file.
file(WRITE "${GEN}/regular_file" "not a folder\n")

# A stand-in CUDA toolkit whose cuobjdump prints its arguments and the cubin's magic, so that
# `compile --emit sass` can be checked end to end where no real disassembler is installed.
file(MAKE_DIRECTORY "${GEN}/fake_cuda/bin")
file(WRITE "${GEN}/fake_cuda/bin/cuobjdump"
  "#!/bin/sh\nPATH=/usr/bin:/bin\nprintf 'fake cuobjdump %s on ' \"$1\"; head -c 4 \"$2\" | tail -c 3; echo\n")
file(CHMOD "${GEN}/fake_cuda/bin/cuobjdump" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
     WORLD_READ WORLD_EXECUTE)
# One that fails, as a disassembler given a cubin it cannot read would.
file(MAKE_DIRECTORY "${GEN}/broken_cuda/bin")
file(WRITE "${GEN}/broken_cuda/bin/cuobjdump" "#!/bin/sh\necho 'cuobjdump fatal   : stand-in failure' >&2\nexit 1\n")
file(CHMOD "${GEN}/broken_cuda/bin/cuobjdump" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
     WORLD_READ WORLD_EXECUTE)
