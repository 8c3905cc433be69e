/*
 * align_emu_dispatch.cpp — src/cuda/align/align_dispatch.cu compiled as host
 * C++ for test_align_emu: its CUDA runtime calls, the arena, a lane's memory
 * and the kernels' launches renamed to the emulator's (test_align_emu.cpp), so
 * the real pass's host side (the context's path and a lane's) runs against
 * emulated device memory next to the real library.
 */
#define skss__cuda_align_pass skss_emu_align_pass
#define skss__cuda_align_lane_pass skss_emu_align_lane_pass
#define skss__cuda_align_lane_reserve skss_emu_lane_reserve
#define skss__cuda_scratch skss_emu_scratch
#define skss__cuda_align_launch skss_emu_align_launch
#define skss__cuda_align_segment skss_emu_align_segment
#define skss__cuda_align_walk skss_emu_align_walk
#define cudaMemcpyAsync skss_emu_memcpy_async
#define cudaMemsetAsync skss_emu_memset_async
#define cudaStreamSynchronize skss_emu_stream_synchronize
#define cudaGetErrorString skss_emu_error_string
#define cudaDeviceGetAttribute skss_emu_device_get_attribute
#include "cuda/align/align_dispatch.cu"
