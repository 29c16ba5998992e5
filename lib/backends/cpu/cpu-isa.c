/*
 * cpu-isa.c - which instruction set extensions this CPU has: read once, used
 * by the kernel dispatch and answered by ggml_cpu_has_*().
 *
 * SPDX-License-Identifier: MIT
 */
#include "ggml-cpu.h"
#include "cpu-impl.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#if defined(__aarch64__)
#include <sys/auxv.h>
#include <sys/prctl.h>
#endif

static struct ggml_cpu_isa g_isa; // what the kernel dispatch may use
static struct ggml_cpu_isa g_hw;  // what the CPU and OS support (ggml_cpu_has_*)
static atomic_bool g_use_ref;

#if defined(__x86_64__)
static void cpuid(unsigned int leaf, unsigned int sub, unsigned int r[4]) {
    __asm__ volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3]) : "a"(leaf), "c"(sub));
}

static uint64_t xgetbv0(void) {
    unsigned int lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t) hi << 32) | lo;
}

static void detect_x86(struct ggml_cpu_isa * isa) {
    unsigned int r[4];
    cpuid(0, 0, r);
    const unsigned int max_leaf = r[0];
    cpuid(1, 0, r);
    const unsigned int ecx1 = r[2];
    isa->sse3  = (ecx1 >> 0) & 1;
    isa->ssse3 = (ecx1 >> 9) & 1;
    const bool fma_cpu     = (ecx1 >> 12) & 1;
    const bool osxsave     = (ecx1 >> 27) & 1;
    const bool avx_cpu     = (ecx1 >> 28) & 1;
    const bool f16c_cpu    = (ecx1 >> 29) & 1;
    // the OS must save the YMM (and ZMM) state for AVX (AVX-512) to be usable
    uint64_t xcr0 = osxsave ? xgetbv0() : 0;
    const bool os_avx    = (xcr0 & 0x6) == 0x6;
    const bool os_avx512 = (xcr0 & 0xe6) == 0xe6;
    const bool os_amx    = (xcr0 & 0x60000) == 0x60000;
    isa->avx  = avx_cpu && os_avx;
    isa->fma  = fma_cpu && os_avx;
    isa->f16c = f16c_cpu && os_avx;
    if (max_leaf >= 7) {
        cpuid(7, 0, r);
        const unsigned int ebx7 = r[1], ecx7 = r[2], edx7 = r[3];
        isa->avx2        = ((ebx7 >> 5) & 1) && os_avx;
        isa->bmi2        = (ebx7 >> 8) & 1;
        isa->avx512      = ((ebx7 >> 16) & 1) && os_avx512;          // AVX512F
        isa->avx512_vbmi = ((ecx7 >> 1) & 1) && os_avx512;
        isa->avx512_vnni = ((ecx7 >> 11) & 1) && os_avx512;
        isa->avx512_bwvl = ((ebx7 >> 30) & 1) && ((ebx7 >> 31) & 1) && os_avx512;
        isa->amx_int8    = ((edx7 >> 25) & 1) && os_amx;
        cpuid(7, 1, r);
        isa->avx_vnni    = ((r[0] >> 4) & 1) && os_avx;
        isa->avx512_bf16 = ((r[0] >> 5) & 1) && os_avx512;
    }
}
#endif

#if defined(__aarch64__)
// HWCAP bits of the arm64 Linux ABI (arch/arm64/include/uapi/asm/hwcap.h)
#define GK_HWCAP_FP       (1UL << 0)
#define GK_HWCAP_ASIMD    (1UL << 1)
#define GK_HWCAP_ASIMDHP  (1UL << 10)
#define GK_HWCAP_ASIMDDP  (1UL << 20)
#define GK_HWCAP_SVE      (1UL << 22)
#define GK_HWCAP2_I8MM    (1UL << 13)
#define GK_HWCAP2_SME     (1UL << 23)
#define GK_HWCAP2_SME2    (1UL << 37)
#ifndef PR_SVE_GET_VL
#define PR_SVE_GET_VL 51
#endif

static void detect_arm64(struct ggml_cpu_isa * isa) {
    unsigned long hw  = getauxval(AT_HWCAP);
    unsigned long hw2 = getauxval(AT_HWCAP2);
    isa->neon        = (hw & GK_HWCAP_ASIMD) != 0;
    isa->arm_fma     = (hw & GK_HWCAP_ASIMD) != 0 && (hw & GK_HWCAP_FP) != 0; // FMLA is base AdvSIMD
    isa->fp16_va     = (hw & GK_HWCAP_ASIMDHP) != 0;
    isa->dotprod     = (hw & GK_HWCAP_ASIMDDP) != 0;
    isa->sve         = (hw & GK_HWCAP_SVE) != 0;
    isa->matmul_int8 = (hw2 & GK_HWCAP2_I8MM) != 0;
    isa->sme         = (hw2 & GK_HWCAP2_SME) != 0;
    isa->sme2        = (hw2 & GK_HWCAP2_SME2) != 0;
    if (isa->sve) {
        int vl = prctl(PR_SVE_GET_VL);
        isa->sve_cnt = vl > 0 ? (vl & 0xffff) : 0;
    }
}
#endif

// true when the comma-separated list names the extension
static bool listed(const char * list, const char * name) {
    const size_t n = strlen(name);
    for (const char * p = list; p && *p;) {
        const char * e = strchr(p, ',');
        const size_t len = e ? (size_t) (e - p) : strlen(p);
        if (len == n && strncmp(p, name, n) == 0) {
            return true;
        }
        p = e ? e + 1 : NULL;
    }
    return false;
}

static void isa_setup(const char * disable) {
    memset(&g_isa, 0, sizeof(g_isa));
#if defined(__x86_64__)
    detect_x86(&g_isa);
#elif defined(__aarch64__)
    detect_arm64(&g_isa);
#endif
    g_hw = g_isa;
    // GGML_CPU_NO_SIMD=1 forces the portable kernels (ggml_cpu_has_* still
    // reports the CPU, from g_hw): useful to compare paths.
    const char * no_simd = getenv("GGML_CPU_NO_SIMD");
    if (no_simd && strcmp(no_simd, "0") != 0) {
        g_isa.avx2 = g_isa.fma = g_isa.f16c = false;
        g_isa.neon = false;
    }
    // the int8 dot-product kernels: 256-bit VPDPBUSD (AVX512-VNNI with VL, on
    // top of the AVX2 set) on x86-64
    g_isa.use_vnni256 = g_isa.avx2 && g_isa.fma && g_isa.f16c && g_isa.avx512 && g_isa.avx512_bwvl &&
                        g_isa.avx512_vnni && !listed(disable, "avx512") && !listed(disable, "avx512_vnni");
    // the AVX2 int8 GEMMs with VPDPBUSD on VEX-encoded ymm (AVX-VNNI: Intel
    // cores since Alder Lake, AMD since Zen 5) in place of VPMADDUBSW; only
    // where the AVX512-VNNI kernels do not run
    g_isa.use_avxvnni = g_isa.avx2 && g_isa.fma && g_isa.f16c && g_isa.avx_vnni && !g_isa.use_vnni256 &&
                        !listed(disable, "avx_vnni");
    // the BF16 GEMM: VDPBF16PS on 512-bit vectors
    g_isa.use_bf16dp = g_isa.avx2 && g_isa.fma && g_isa.f16c && g_isa.avx512 && g_isa.avx512_bf16 &&
                       !listed(disable, "avx512") && !listed(disable, "avx512_bf16");
    // the float GEMM on 512-bit FMAs
    g_isa.use_avx512f = g_isa.avx2 && g_isa.fma && g_isa.f16c && g_isa.avx512 && !listed(disable, "avx512");
    // arm64: SDOT (Armv8.2 dot product)
    g_isa.use_dotprod = g_isa.neon && g_isa.dotprod && !listed(disable, "dotprod");
}

void ggml_cpu_isa_disable(const char * list) {
    isa_setup(list);
}

// Runs before main() and before any other thread can call a kernel.
__attribute__((constructor)) static void cpu_isa_detect(void) {
    // GGML_CPU_DISABLE=avx512,dotprod: kernels of those extensions are not used
    // (ggml_cpu_has_* still reports the CPU); the tests compare the paths
    isa_setup(getenv("GGML_CPU_DISABLE"));
    const char * ref = getenv("GGML_CPU_REF");
    if (ref && strcmp(ref, "0") != 0) {
        atomic_store(&g_use_ref, true);
    }
}

const struct ggml_cpu_isa * ggml_cpu_isa(void) {
    return &g_isa;
}

void ggml_cpu_set_use_ref(bool use_ref) {
    atomic_store(&g_use_ref, use_ref);
}

bool ggml_cpu_get_use_ref(void) {
    return atomic_load_explicit(&g_use_ref, memory_order_relaxed);
}

void ggml_cpu_init(void) {
    // Detection ran in the constructor; nothing else needs a first call
    // (no lookup tables: the conversions are computed). Safe to call often.
}

// ---------------------------------------------------------------------------
// ggml_cpu_has_*: what the CPU (and OS) support, not what the build uses.
// ---------------------------------------------------------------------------

#if defined(__x86_64__)
#define X86(f) (g_hw.f ? 1 : 0)
#else
#define X86(f) 0
#endif
#if defined(__aarch64__)
#define ARM(f) (g_hw.f ? 1 : 0)
#else
#define ARM(f) 0
#endif

int ggml_cpu_has_sse3(void)        { return X86(sse3); }
int ggml_cpu_has_ssse3(void)       { return X86(ssse3); }
int ggml_cpu_has_avx(void)         { return X86(avx); }
int ggml_cpu_has_avx_vnni(void)    { return X86(avx_vnni); }
int ggml_cpu_has_avx2(void)        { return X86(avx2); }
int ggml_cpu_has_bmi2(void)        { return X86(bmi2); }
int ggml_cpu_has_f16c(void)        { return X86(f16c); }
int ggml_cpu_has_fma(void)         { return X86(fma); }
int ggml_cpu_has_avx512(void)      { return X86(avx512); }
int ggml_cpu_has_avx512_vbmi(void) { return X86(avx512_vbmi); }
int ggml_cpu_has_avx512_vnni(void) { return X86(avx512_vnni); }
int ggml_cpu_has_avx512_bf16(void) { return X86(avx512_bf16); }
int ggml_cpu_has_amx_int8(void)    { return X86(amx_int8); }
int ggml_cpu_has_neon(void)        { return ARM(neon); }
int ggml_cpu_has_arm_fma(void)     { return ARM(arm_fma); }
int ggml_cpu_has_fp16_va(void)     { return ARM(fp16_va); }
int ggml_cpu_has_dotprod(void)     { return ARM(dotprod); }
int ggml_cpu_has_matmul_int8(void) { return ARM(matmul_int8); }
int ggml_cpu_has_sve(void)         { return ARM(sve); }
int ggml_cpu_get_sve_cnt(void)     {
#if defined(__aarch64__)
    return g_hw.sve_cnt;
#else
    return 0;
#endif
}
int ggml_cpu_has_sme(void)         { return ARM(sme); }
int ggml_cpu_has_sme2(void)        { return ARM(sme2); }
int ggml_cpu_has_riscv_v(void)     { return 0; }
int ggml_cpu_get_rvv_vlen(void)    { return 0; }
int ggml_cpu_has_vsx(void)         { return 0; }
int ggml_cpu_has_vxe(void)         { return 0; }
int ggml_cpu_has_wasm_simd(void)   { return 0; }
int ggml_cpu_has_llamafile(void)   { return 0; }
