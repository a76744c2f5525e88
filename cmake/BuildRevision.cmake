# Generates build_revision.cpp at *build* time (not configure time), so the revision compiled into
# a binary is always the commit it was built from. The file is rewritten only when the text changes,
# so an unchanged revision does not relink anything.
set(MT_REVISION_CPP ${CMAKE_BINARY_DIR}/generated/build_revision.cpp)
add_custom_target(mt_build_revision
  COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${CMAKE_SOURCE_DIR} -DOUTPUT=${MT_REVISION_CPP}
          -P ${CMAKE_CURRENT_LIST_DIR}/WriteBuildRevision.cmake
  BYPRODUCTS ${MT_REVISION_CPP}
  COMMENT "Recording build revision")
