#!/bin/bash
# The sm_90a SASS of four forward instances (cuobjdump, on the GPU machine), for instruction counts.
set -u
[ -d gpu_bundle/bin ] || tar -xJf gpu_bundle_pack/bundle.tar.xz
cd $OUT
for f in _ZN2fn17rms_norm_fwd_warpI6__halfLi10ELb0ELi2EEEvNS_13LeanFwdParamsE _ZN2fn17rms_norm_fwd_tileIfLi5ELb0EEEvNS_9FwdParamsE \
         _ZN2fn19rms_norm_fwd_threadI6__halfLi1ELb1EEEvNS_9FwdParamsE _ZN2fn18rms_norm_fwd_lanesI13__nv_bfloat16Lb0ELb0ELi2EEEvNS_9FwdParamsE; do
  cuobjdump -sass -arch sm_90a -fun "$f" $OLDPWD/gpu_bundle/lib/libfusednorm.so > "$f.sass" 2>&1; echo "$f $(grep -c '/\*[0-9a-f]*\*/' $f.sass)"
done
tar -czf sass.tgz *.sass && rm *.sass
