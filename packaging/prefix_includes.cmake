# Run by `cmake --install` after the headers are copied: the installed headers live under
# kda_harness/ (one include prefix), so their includes of each other ("contract/x.hpp") get
# that prefix ("kda_harness/contract/x.hpp"). KDA_INSTALLED_HEADERS: the installed kda_harness/.
file(GLOB_RECURSE headers ${KDA_INSTALLED_HEADERS}/*.hpp)
foreach(header IN LISTS headers)
  file(READ ${header} text)
  string(REGEX REPLACE "#include \"(contract|cases|reference|engine|operators|kernels)/" "#include \"kda_harness/\\1/" prefixed "${text}")
  if(NOT prefixed STREQUAL text)
    file(WRITE ${header} "${prefixed}")
  endif()
endforeach()
