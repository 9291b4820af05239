#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The AF_XDP backend (UROCE_XDP) with unmodified programs: raw_backend.sh says what runs.
IC_RAW=xdp
. "$(dirname "$0")/raw_backend.sh"
