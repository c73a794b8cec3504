#!/bin/bash
# Call 3 (carry=[".quack/quack_site.tar.xz.part-ab"]): stage Quack's second part.
bash tools/bench/quack_on_gpu.sh --stage
