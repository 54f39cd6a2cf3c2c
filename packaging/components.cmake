# Top-level CMakeLists.txt of the "tdshare" component tarball of the
# source packages (debian/, redhat/): our own components, built against an
# rdma-core that the package build has just installed into a DESTDIR.
#
# It stands in for the superbuild: same variables and fork_link_stage(),
# but linking the installed libraries with no RUNPATH, as distributions do.
#
#   cmake -S tdshare -DRDMA_CORE_SRC_DIR=<patched tree>
#         -DRDMA_INSTALL_INCLUDEDIR=<destdir>/usr/include
#         -DRDMA_INSTALL_LIBDIR=<destdir>/usr/lib/<multiarch>
cmake_minimum_required(VERSION 3.20)
project(rdma-core-tdshare-components C)
# <docdir>/mlx5emu, not <docdir>/<this project>/mlx5emu
set(CMAKE_INSTALL_DOCDIR share/doc CACHE PATH "documentation root")
include(GNUInstallDirs)

foreach(var RDMA_CORE_SRC_DIR RDMA_INSTALL_INCLUDEDIR RDMA_INSTALL_LIBDIR)
  if(NOT IS_DIRECTORY "${${var}}")
    message(FATAL_ERROR "${var} must name the installed rdma-core (got '${${var}}')")
  endif()
endforeach()

# Components write their outputs below the stage, as in the superbuild.
set(RDMA_STAGE_DIR ${CMAKE_BINARY_DIR}/stage)
# the manual pages sit in man/ beside this file in the component tarball
set(FORK_MAN_DIR ${CMAKE_SOURCE_DIR}/man)
file(MAKE_DIRECTORY ${RDMA_STAGE_DIR})
file(CREATE_LINK ${RDMA_INSTALL_INCLUDEDIR} ${RDMA_STAGE_DIR}/include SYMBOLIC)

add_custom_target(rdma-core)
foreach(lib ibverbs mlx5 rdmacm efa)
  add_library(stage::${lib} SHARED IMPORTED GLOBAL)
  set_target_properties(stage::${lib} PROPERTIES
    IMPORTED_LOCATION ${RDMA_INSTALL_LIBDIR}/lib${lib}.so
    INTERFACE_INCLUDE_DIRECTORIES ${RDMA_INSTALL_INCLUDEDIR})
endforeach()

function(fork_link_stage target)
  foreach(lib ${ARGN})
    target_link_libraries(${target} PRIVATE stage::${lib})
  endforeach()
endfunction()

# -Werror is make check's business (the superbuild): here, with the
# distribution's hardening flags (_FORTIFY_SOURCE, other compilers), a new
# warning must not stop a package build on a user's machine.
add_compile_options(-Wall -Wextra)

# the RC bring-up below both components
add_subdirectory(common)
add_subdirectory(mlx5emu)
# the emulator's benchmark is staged, not installed, by its own rules
install(TARGETS emu_write_rate RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
add_subdirectory(perftest-ext)
