# perftest_ext_man_page(TOOL): TOOL.1 from TOOL.1.md in the calling folder,
# through pandoc as upstream builds its own, into the stage and installed.
# Smart punctuation is off so that option dashes stay ASCII hyphens.
find_program(PANDOC pandoc REQUIRED)
include(GNUInstallDirs)

function(perftest_ext_man_page tool)
  set(md ${CMAKE_CURRENT_SOURCE_DIR}/${tool}.1.md)
  set(man ${RDMA_STAGE_DIR}/share/man/man1/${tool}.1)
  add_custom_command(OUTPUT ${man}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${RDMA_STAGE_DIR}/share/man/man1
    COMMAND ${PANDOC} -s -f markdown-smart -t man ${md} -o ${man}
    DEPENDS ${md}
    COMMENT "Creating man page ${tool}.1")
  add_custom_target(${tool}-man ALL DEPENDS ${man})
  # after the rdma-core install, which fills the same stage man directory
  add_dependencies(${tool}-man rdma-core)
  install(FILES ${man} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
endfunction()
