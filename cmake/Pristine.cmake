# An unpatched rdma-core 65.0 (libibverbs + libmlx5 only), built from the
# same pinned tarball as the fork: the baseline the tests (ABI in both
# directions, the differential test, ib_write_mt on an old library) and the
# benchmarks (callgrind.sh) compare with. Its libraries: PRISTINE_LIB_DIR.
execute_process(COMMAND ${CMAKE_SOURCE_DIR}/cmake/obtain-upstream.sh
  OUTPUT_VARIABLE pristine_tarball OUTPUT_STRIP_TRAILING_WHITESPACE
  RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "cannot obtain the upstream tarball for the pristine build")
endif()
set(PRISTINE_DIR ${CMAKE_BINARY_DIR}/pristine)
set(PRISTINE_LIB_DIR ${PRISTINE_DIR}/build/lib)
ExternalProject_Add(rdma-core-pristine
  URL ${pristine_tarball}
  URL_HASH SHA256=f6ba3d8b2c4aa334c5c883c1ad0772de339011123cff4fb1db32ae7a443fb7ca
  SOURCE_DIR ${PRISTINE_DIR}/src
  BINARY_DIR ${PRISTINE_DIR}/build
  CMAKE_GENERATOR Ninja
  CMAKE_ARGS -DNO_PYVERBS=1 -DNO_MAN_PAGES=1 -DIN_PLACE=1
             -DCMAKE_BUILD_TYPE=RelWithDebInfo
  BUILD_COMMAND ninja ibverbs mlx5
  # Only mlx5 is built: drop the other providers' driver files so that the
  # unpatched libibverbs does not warn about them.
  INSTALL_COMMAND find ${PRISTINE_DIR}/build/etc/libibverbs.d -name *.driver
                  ! -name mlx5.driver -delete
  DOWNLOAD_EXTRACT_TIMESTAMP 1)
