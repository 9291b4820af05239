# SPDX-License-Identifier: MIT
# uroce_netif: the host's addresses for the GID table (netif.c), through libnl-route's caches.
# Included rather than add_subdirectory()'d so that it can sit beside the verbs library's own
# CMakeLists. The imported libnl targets are GLOBAL because the static library carries them
# to whoever links it, the verbs tests in tests/ included.
if(NOT TARGET uroce_netif)
  find_package(PkgConfig REQUIRED)
  pkg_check_modules(NL3 REQUIRED IMPORTED_TARGET GLOBAL libnl-3.0)
  pkg_check_modules(NL_ROUTE3 REQUIRED IMPORTED_TARGET GLOBAL libnl-route-3.0)

  add_library(uroce_netif STATIC ${CMAKE_CURRENT_LIST_DIR}/netif.c)
  target_include_directories(uroce_netif PUBLIC ${CMAKE_CURRENT_LIST_DIR})
  target_link_libraries(uroce_netif PUBLIC uroce_wire PRIVATE PkgConfig::NL_ROUTE3 PkgConfig::NL3)
  set_target_properties(uroce_netif PROPERTIES POSITION_INDEPENDENT_CODE ON)
endif()
