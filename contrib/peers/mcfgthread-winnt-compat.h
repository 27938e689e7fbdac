/*
 * mcfgthread-winnt-compat.h - what mcfgthread's cpu_collection.c needs of
 * Windows 10's CPU sets and MinGW-w64 headers before version 11 lack (Debian
 * 12 has 10): SYSTEM_CPU_SET_INFORMATION and PROCESSOR_RELATIONSHIP's
 * EfficiencyClass. contrib/peers/build-mcfgthread.sh force-includes it into
 * every mcfgthread source, only when <windows.h> has no
 * SYSTEM_CPU_SET_INFORMATION. The layouts are the Windows SDK's (winnt.h);
 * mcfgthread looks GetSystemCpuSetInformation up at run time and goes without
 * it where the system has none.
 */
#ifndef BENCH_MCFGTHREAD_WINNT_COMPAT_H
#define BENCH_MCFGTHREAD_WINNT_COMPAT_H

/* <windows.h> as mcfgthread's xprecompiled.h includes it, so that its own
 * include later finds the same declarations. */
#define WIN32_LEAN_AND_MEAN 1
#define NOMINMAX 1
#define NOGDI 1
#define NOMSG 1
#include <windows.h>

/* The older PROCESSOR_RELATIONSHIP has Reserved[21] where the SDK has
 * EfficiencyClass and Reserved[20]: the same byte, the first after Flags. The
 * struct below keeps that spelling for its own EfficiencyClass. */
#define EfficiencyClass Reserved[0]

typedef enum _CPU_SET_INFORMATION_TYPE {
    CpuSetInformation
} CPU_SET_INFORMATION_TYPE, *PCPU_SET_INFORMATION_TYPE;

typedef struct _SYSTEM_CPU_SET_INFORMATION {
    DWORD Size;
    CPU_SET_INFORMATION_TYPE Type;
    union {
        struct {
            DWORD Id;
            WORD Group;
            BYTE LogicalProcessorIndex;
            BYTE CoreIndex;
            BYTE LastLevelCacheIndex;
            BYTE NumaNodeIndex;
            BYTE Reserved[1]; /* EfficiencyClass, through the macro above */
            BYTE AllFlags;    /* Parked, Allocated, AllocatedToTargetProcess, RealTime */
            union {
                DWORD ReservedWord;
                BYTE SchedulingClass;
            };
            DWORD64 AllocationTag;
        } CpuSet;
    };
} SYSTEM_CPU_SET_INFORMATION, *PSYSTEM_CPU_SET_INFORMATION;

#endif
