/*
 * code_end.h - the last line of every file of the library: ends the section
 * of our code that internal.h opens for clang (asynchronous cancellation tells
 * our code from the program's by it). A file that does not end with it does
 * not compile under clang. No include guard: each file ends its own section.
 */
#if defined(__clang__)
#pragma clang attribute pop
#endif
