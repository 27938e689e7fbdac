/* test_thread.c - placeholder until its suite is written. */
#include "testutil.h"

static void test_placeholder(void)
{
    CU_ASSERT_EQUAL(sizeof(pthread_t), sizeof(void *));
}

static CU_TestInfo cases[] = {
    {"placeholder", test_placeholder},
    CU_TEST_INFO_NULL,
};

int main(void)
{
    return slimtest_run("thread", cases, 60);
}
