#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The AF_PACKET backend (UROCE_PACKET) with unmodified programs: raw_backend.sh says what runs.
IC_RAW=packet
. "$(dirname "$0")/raw_backend.sh"
