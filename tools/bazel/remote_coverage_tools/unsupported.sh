#!/bin/bash
echo "fusednorm: 'bazel coverage' is not supported by this offline build (@remote_coverage_tools is a local stand-in)" >&2
exit 1
