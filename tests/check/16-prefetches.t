#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The CPU kernels' software prefetches are in the library's code. A
# prefetch changes no value, so GCC counts a function made of prefetches
# alone as free of effects and deletes the calls to it when it is not
# inlined: that took the flash-attention decode's prefetches (1.6-1.7x
# slower head-major decode) and the four-row dots' (19 against 26-29 GB/s
# at F16) without a test noticing, for several sessions each. Their helpers
# are inlined by force now; this checks, per function that is meant to
# prefetch, that at least one prefetch instruction made it into the
# binary. x86-64 only (the NEON kernels prefetch little and by hand).
cd "$(dirname "$0")/../.." || exit 1
: "${GACCEL_BUILD:?run through make check}"

lib=$GACCEL_BUILD/lib/libggml-backend.a
# function (a static one may carry a .isra/.constprop suffix) and where its
# prefetches come from
funcs='
gk_dot4_f32_avx2               dot4_prefetch (vec-x86.c)
gk_dot4_f16_f32_avx2           dot4_prefetch
gk_dot4_bf16_f32_avx2          dot4_prefetch
gk_dot4_bf16p_f32_avx2         dot4_prefetch
gk_norm_step_nt_avx2           pipe_prefetch (vec-x86.c)
gk_scale_nt_sumsq_avx2         pipe_prefetch
gk_swiglu_avx512               glu_prefetch (vec-avx512.c)
gk_geglu_avx512                glu_prefetch
gk_gemv_f32_avx512             prefetch_rows (gk-gemv-tile.h)
gk_gemv_f16_avx2               prefetch_rows
gk_gemv_bf16_bf16_avx512bf16   prefetch_rows
gk_dot4_q4_K_q8_K_avx2         gk_prefetch4_rows (gk-x86.h)
gk_dot4_q6_K_q8_K_avx512       gk_prefetch4_rows
gk_gemv_q4_0_vnni              each stream ahead (quant-avx512.c)
gk_dot4s_q6_K_q8_K_avx512      gk_prefetch4_rows
gk_dot4s_q6_K_q8_K_avx2        gk_prefetch4_rows
gk_softmax_exp_avx512          the next row (softmax-avx512.c)
gk_softmax_exp_avx2            the next row (softmax-x86.c)
fa_vec                         fa_prefetch (cpu-ops-attn.c)
gk_fa_qk_f16_heads_avx512      the page ahead (attn-f16-avx512.c)
gk_fa_pv_f16_heads_avx512      the page ahead
gk_fa_qk_q8_0_heads_avx512     the page ahead (attn-quant-avx512.c)
gk_fa_pv_q4_0_heads_avx512     the page ahead
qkh_grouped4                   the group ahead (attn-f16-avx512.c, GQA)
pvh_grouped4                   the group ahead
gk_fa_qk_f16_heads_avx2        the page ahead (attn-x86.c)
gk_fa_pv_f16_heads_avx2        the page ahead
'
n_funcs=$(echo "$funcs" | grep -c .)
echo "1..$n_funcs"
case $(uname -m) in
x86_64) ;;
*)
	i=0
	while [ $i -lt "$n_funcs" ]; do
		i=$((i + 1))
		echo "ok $i # SKIP not x86-64"
	done
	exit 0
	;;
esac
if [ ! -f "$lib" ]; then
	i=0
	while [ $i -lt "$n_funcs" ]; do
		i=$((i + 1))
		echo "not ok $i - ${lib#"$GACCEL_BUILD"/}: not built"
	done
	exit 1
fi
# prefetch instructions per function, every function of the library
counts=$(objdump -d --no-show-raw-insn "$lib" | awk '
	/^[0-9a-f]+ <.*>:$/ { fn = $2; gsub(/[<>:]/, "", fn); sub(/\..*/, "", fn); seen[fn] = 1 }
	/\tprefetch/ { c[fn]++ }
	END { for (f in seen) print f, c[f] + 0 }')
n=0
fail=0
echo "$funcs" | grep . | {
	while read -r fn from; do
		n=$((n + 1))
		c=$(echo "$counts" | awk -v f="$fn" '$1 == f { print $2; exit }')
		if [ -z "$c" ]; then
			echo "not ok $n - $fn: no such function in the library (renamed? update this list)"
			fail=1
		elif [ "$c" -eq 0 ]; then
			echo "not ok $n - $fn: no prefetch instruction (from $from: compiled away?)"
			fail=1
		else
			echo "ok $n - $fn: $c prefetch instructions"
		fi
	done
	exit $fail
}
