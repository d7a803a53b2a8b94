/* ProcessPrng for Wine 8 (Debian 12's), which lacks it: Rust's standard
 * library calls it on Windows for its random keys, and kosumi.exe stops at
 * start without it. Wine 9 and Windows have it; this DLL is only for
 * running kosumi.exe and its tests under Wine 8 (`.ci/run` builds it with
 * mingw-w64 and puts it beside the executables). The bytes come from
 * advapi32's RtlGenRandom (SystemFunction036). */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
    while (length > 0) {
        ULONG n = length > 0x10000000 ? 0x10000000 : (ULONG)length;
        if (!SystemFunction036(data, n)) {
            return FALSE;
        }
        data += n;
        length -= n;
    }
    return TRUE;
}
