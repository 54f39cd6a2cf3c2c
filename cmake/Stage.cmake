# Imported targets for the staged, patched rdma-core libraries.
#
# Our own programs and tests link against build/stage, never against the
# system's verbs libraries: fork_link_stage() adds the link, the include
# path, a RUNPATH into the stage and a build-order dependency on the
# rdma-core ExternalProject (imported targets alone give no ordering).

file(MAKE_DIRECTORY ${RDMA_STAGE_DIR}/include ${RDMA_STAGE_DIR}/lib)

foreach(lib ibverbs mlx5 rdmacm efa)
  add_library(stage::${lib} SHARED IMPORTED GLOBAL)
  set_target_properties(stage::${lib} PROPERTIES
    IMPORTED_LOCATION ${RDMA_STAGE_DIR}/lib/lib${lib}.so
    INTERFACE_INCLUDE_DIRECTORIES ${RDMA_STAGE_DIR}/include)
endforeach()

# fork_link_stage(<target> <lib>...) with <lib> in ibverbs, mlx5, rdmacm, efa
function(fork_link_stage target)
  foreach(lib ${ARGN})
    target_link_libraries(${target} PRIVATE stage::${lib})
  endforeach()
  add_dependencies(${target} rdma-core)
  set_target_properties(${target} PROPERTIES
    BUILD_RPATH ${RDMA_STAGE_DIR}/lib
    INSTALL_RPATH ${RDMA_STAGE_DIR}/lib)
endfunction()
