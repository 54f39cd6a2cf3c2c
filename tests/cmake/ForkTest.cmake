# How our tests are built and registered. Every folder of tests/ uses these;
# none defines its own wrapper around add_test().

find_library(CMOCKA_LIBRARY cmocka REQUIRED)

# The staged launcher: tests run under `${MLX5EMU} run`, C tests call it
# (MLX5EMU_BIN), scripts find it as $MLX5EMU.
set(MLX5EMU ${RDMA_STAGE_DIR}/bin/mlx5emu)

# fork_add_cmocka_test(<name> SOURCES <src>... [STAGE <lib>...] [LIBS <lib>...])
# builds a cmocka test program; the caller decides how add_test() runs it.
function(fork_add_cmocka_test name)
  cmake_parse_arguments(T "" "" "SOURCES;STAGE;LIBS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE ${CMOCKA_LIBRARY} ${T_LIBS})
  if(T_STAGE)
    fork_link_stage(${name} ${T_STAGE})
  endif()
endfunction()

# fork_test_port(<var> [<count>])
# sets <var> to the first of <count> (default 1) consecutive TCP ports that
# no other test is given. Ports come from one counter, as libuv's TEST_PORT,
# so tests that run at the same time (ctest -j) never bind the same one.
set_property(GLOBAL PROPERTY FORK_TEST_NEXT_PORT 18600)
function(fork_test_port var)
  set(count 1)
  if(ARGC GREATER 1)
    set(count ${ARGV1})
  endif()
  get_property(port GLOBAL PROPERTY FORK_TEST_NEXT_PORT)
  math(EXPR next "${port} + ${count}")
  set_property(GLOBAL PROPERTY FORK_TEST_NEXT_PORT ${next})
  set(${var} ${port} PARENT_SCOPE)
endfunction()

# fork_emu_test(<name> TIMEOUT <seconds> [RUN [<launcher option>...]]
#               COMMAND <command> [<arg>...]
#               [ENVIRONMENT <var>=<value>...] [LABELS <label>...]
#               [SKIP_RETURN_CODE <code>])
# registers a test on the emulated device. With RUN the command runs under
# `mlx5emu run <launcher options> --`; without, the command starts the
# launcher itself, which it finds as $MLX5EMU. Each test has a fabric of its
# own (MLX5EMU_FABRIC is the test's name): QPNs, fabric slots and the
# device's HW UARs are shared by the processes of a fabric, so tests that
# run at the same time must not share one. LABELS defaults to the folder's
# FORK_TEST_LABELS. An empty argument is dropped, as in any CMake list.
function(fork_emu_test name)
  cmake_parse_arguments(T "" "TIMEOUT;SKIP_RETURN_CODE"
    "RUN;COMMAND;ENVIRONMENT;LABELS" ${ARGN})
  if(NOT T_TIMEOUT OR NOT T_COMMAND OR T_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "fork_emu_test(${name}): TIMEOUT and COMMAND needed"
      " (unparsed: ${T_UNPARSED_ARGUMENTS})")
  endif()
  set(command ${T_COMMAND})
  if(DEFINED T_RUN OR "RUN" IN_LIST T_KEYWORDS_MISSING_VALUES)
    set(command ${MLX5EMU} run ${T_RUN} -- ${T_COMMAND})
  endif()
  if(NOT T_LABELS)
    set(T_LABELS ${FORK_TEST_LABELS})
  endif()
  set(env MLX5EMU=${MLX5EMU} MLX5EMU_FABRIC=${name} ${T_ENVIRONMENT})
  add_test(NAME ${name} COMMAND ${command})
  set_tests_properties(${name} PROPERTIES TIMEOUT ${T_TIMEOUT}
    ENVIRONMENT "${env}")
  if(T_LABELS)
    set_tests_properties(${name} PROPERTIES LABELS "${T_LABELS}")
  endif()
  if(T_SKIP_RETURN_CODE)
    set_tests_properties(${name} PROPERTIES
      SKIP_RETURN_CODE ${T_SKIP_RETURN_CODE})
  endif()
endfunction()
