// Run-time CPU checks for the kernel dispatch (ImageCodec's KernelDispatch.swift): Swift has
// no cpuid, so clang's builtins answer, inlined into the caller.
#include <stdlib.h>

/// 1 when the CPU runs the AVX2 kernel build (AVX2, BMI2, FMA: the haswell feature set the
/// JPEGKernelsAVX2 target is compiled for), 0 otherwise or on other architectures.
static inline int gallery_cpu_runs_avx2_kernels(void) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("fma")
        && __builtin_cpu_supports("popcnt");
#else
    return 0;
#endif
}

/// 1 when GALLERY_PORTABLE_KERNELS is set to anything but "" or "0": the portable kernels are
/// forced (tests, and checking a result on a machine without AVX2).
static inline int gallery_portable_kernels_forced(void) {
    const char *v = getenv("GALLERY_PORTABLE_KERNELS");
    return v != 0 && v[0] != 0 && !(v[0] == '0' && v[1] == 0);
}
