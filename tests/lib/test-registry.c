// SPDX-License-Identifier: MIT
//
// test-registry: the backend registry (built-in backends with the CPU last,
// lookups by name case-insensitively and by type, init_by_name with
// "name:params", init_best never choosing ACCEL) and dynamic loading of
// libggml-test.so: found by load_all_from_path, refused for a wrong
// api_version or a score of 0, the best-scoring variant chosen,
// GGML_BACKEND_DIR and GGML_BACKEND_PATH, unloaded cleanly.
//
// The libraries are built next to the ASan test programs (mk/lib.mk); where
// they are missing (the static cross builds) the loading tests are skipped.

#include "ggml.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "ggml-impl.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test-harness.h"
#include "test-log.h"
#include "testbackend.h"

// <directory of this program>/dl/<sub>, or false when it does not exist
static bool dl_dir(char * out, size_t n, const char * sub) {
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (len <= 0) {
        return false;
    }
    exe[len] = '\0';
    char * slash = strrchr(exe, '/');
    if (slash == NULL) {
        return false;
    }
    *slash = '\0';
    int w = snprintf(out, n, "%s/dl/%s", exe, sub);
    if (w < 0 || (size_t) w >= n) {
        return false;
    }
    struct stat st;
    return stat(out, &st) == 0 && S_ISDIR(st.st_mode);
}

#define NEED_DL_DIR(buf, sub) do {                                      \
        if (!dl_dir(buf, sizeof(buf), sub)) {                           \
            SKIP(return, "no test backend libraries (static build)");   \
        }                                                               \
    } while (0)

TEST(builtin_cpu_last_and_lookups) {
    size_t n_regs = ggml_backend_reg_count();
    ASSERT_GE(n_regs, 1);
    ggml_backend_reg_t cpu_reg = ggml_backend_reg_get(n_regs - 1);
    EXPECT_EQ(ggml_backend_cpu_reg(), cpu_reg);
    EXPECT_EQ(cpu_reg, ggml_backend_reg_by_name("cpu"));
    EXPECT_EQ(cpu_reg, ggml_backend_reg_by_name("CPU"));
    EXPECT_EQ(NULL, ggml_backend_reg_by_name("no-such-backend"));
    EXPECT_EQ(NULL, ggml_backend_reg_by_name(NULL));

    ggml_backend_dev_t cpu_dev = ggml_backend_dev_by_name("cPu");
    ASSERT_NE(NULL, cpu_dev);
    EXPECT_EQ(GGML_BACKEND_DEVICE_TYPE_CPU, ggml_backend_dev_type(cpu_dev));
    EXPECT_EQ(cpu_dev, ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU));
    EXPECT_EQ(cpu_reg, ggml_backend_dev_backend_reg(cpu_dev));
    EXPECT_GE(ggml_backend_dev_count(), 1);
    EXPECT_EQ(1, ggml_backend_reg_dev_count(cpu_reg));
    EXPECT_EQ(cpu_dev, ggml_backend_reg_dev_get(cpu_reg, 0));
    bool found = false;
    for (size_t i = 0; i < ggml_backend_dev_count(); i++) {
        found |= ggml_backend_dev_get(i) == cpu_dev;
    }
    EXPECT_TRUE(found);
    log_start();
    EXPECT_EQ(NULL, ggml_backend_dev_get(ggml_backend_dev_count()));
    EXPECT_EQ(NULL, ggml_backend_reg_get(n_regs));
    log_stop();
    EXPECT_EQ(GGML_BACKEND_DEVICE_TYPE_IGPU, GGML_BACKEND_DEVICE_TYPE_GPU_UMA);
}

TEST(init_by_name_type_best) {
    ggml_backend_t b = ggml_backend_init_by_name("cpu", NULL);
    ASSERT_NE(NULL, b);
    EXPECT_TRUE(ggml_backend_is_cpu(b));
    ggml_backend_free(b);
    b = ggml_backend_init_by_name("CPU:n_threads=1", NULL);
    ASSERT_NE(NULL, b);
    EXPECT_TRUE(ggml_backend_is_cpu(b));
    ggml_backend_free(b);
    log_start();
    EXPECT_EQ(NULL, ggml_backend_init_by_name("nothing", NULL));
    EXPECT_EQ(NULL, ggml_backend_init_by_name(NULL, NULL));
    log_stop();
    EXPECT_NE(NULL, strstr(log_buf, "nothing"));

    b = ggml_backend_init_by_type(GGML_BACKEND_DEVICE_TYPE_CPU, NULL);
    ASSERT_NE(NULL, b);
    EXPECT_TRUE(ggml_backend_is_cpu(b));
    ggml_backend_free(b);

    // a registered ACCEL device is never the best; a GPU device is
    struct tb_config cfg;
    memset(&cfg, 0, sizeof(cfg));
    cfg.name = "ACCELX";
    cfg.type = GGML_BACKEND_DEVICE_TYPE_ACCEL;
    struct tb_device * acc = tb_device_new(&cfg);
    size_t n_dev = ggml_backend_dev_count();
    ggml_backend_register(&acc->reg);
    ggml_backend_register(&acc->reg); // twice: once
    ggml_backend_device_register(&acc->dev);
    EXPECT_EQ(n_dev + 1, ggml_backend_dev_count());
    EXPECT_EQ(&acc->dev, ggml_backend_dev_by_name("accelx"));
    EXPECT_EQ(&acc->dev, ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_ACCEL));
    b = ggml_backend_init_best();
    ASSERT_NE(NULL, b);
    EXPECT_NE(GGML_BACKEND_DEVICE_TYPE_ACCEL, ggml_backend_dev_type(ggml_backend_get_device(b)));
    ggml_backend_free(b);

    bool have_gpu = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_GPU) != NULL;
    cfg.name = "IGPUX";
    cfg.type = GGML_BACKEND_DEVICE_TYPE_IGPU;
    struct tb_device * igpu = tb_device_new(&cfg);
    ggml_backend_register(&igpu->reg);
    b = ggml_backend_init_best();
    ASSERT_NE(NULL, b);
    enum ggml_backend_dev_type t = ggml_backend_dev_type(ggml_backend_get_device(b));
    EXPECT_EQ(have_gpu ? GGML_BACKEND_DEVICE_TYPE_GPU : GGML_BACKEND_DEVICE_TYPE_IGPU, t);
    ggml_backend_free(b);

    ggml_backend_unload(&acc->reg);
    ggml_backend_unload(&igpu->reg);
    EXPECT_EQ(n_dev, ggml_backend_dev_count());
    EXPECT_EQ(NULL, ggml_backend_dev_by_name("accelx"));
}

TEST(load_and_unload) {
    char dir[PATH_MAX], path[PATH_MAX + 32];
    NEED_DL_DIR(dir, "ok");
    snprintf(path, sizeof(path), "%s/libggml-test.so", dir);
    size_t n_regs = ggml_backend_reg_count();
    size_t n_dev = ggml_backend_dev_count();
    ggml_backend_reg_t reg = ggml_backend_load(path);
    ASSERT_NE(NULL, reg);
    EXPECT_STREQ("test", ggml_backend_reg_name(reg));
    EXPECT_EQ(n_regs + 1, ggml_backend_reg_count());
    EXPECT_EQ(n_dev + 1, ggml_backend_dev_count());
    ggml_backend_dev_t dev = ggml_backend_dev_by_name("testdl");
    ASSERT_NE(NULL, dev);
    EXPECT_STREQ("default", ggml_backend_dev_description(dev));
    ggml_backend_t b = ggml_backend_dev_init(dev, NULL);
    ASSERT_NE(NULL, b);
    EXPECT_STREQ("TESTDL", ggml_backend_name(b));
    ggml_backend_free(b);
    // ACCEL: never the best
    b = ggml_backend_init_best();
    EXPECT_NE(GGML_BACKEND_DEVICE_TYPE_ACCEL, ggml_backend_dev_type(ggml_backend_get_device(b)));
    ggml_backend_free(b);
    // loading it again registers nothing new
    EXPECT_EQ(reg, ggml_backend_load(path));
    EXPECT_EQ(n_regs + 1, ggml_backend_reg_count());

    ggml_backend_unload(reg);
    EXPECT_EQ(n_regs, ggml_backend_reg_count());
    EXPECT_EQ(n_dev, ggml_backend_dev_count());
    EXPECT_EQ(NULL, ggml_backend_reg_by_name("test"));
    EXPECT_EQ(NULL, ggml_backend_dev_by_name("testdl"));

    log_start();
    EXPECT_EQ(NULL, ggml_backend_load("/nonexistent/libggml-nothing.so"));
    EXPECT_EQ(NULL, ggml_backend_load(NULL));
    log_stop();
}

TEST(wrong_api_version_refused) {
    char dir[PATH_MAX], path[PATH_MAX + 32];
    NEED_DL_DIR(dir, "badapi");
    snprintf(path, sizeof(path), "%s/libggml-test.so", dir);
    size_t n_regs = ggml_backend_reg_count();
    log_start();
    EXPECT_EQ(NULL, ggml_backend_load(path));
    log_stop();
    EXPECT_NE(NULL, strstr(log_buf, "incompatible API version 99"));
    EXPECT_EQ(n_regs, ggml_backend_reg_count());
    log_start();
    ggml_backend_load_all_from_path(dir);
    log_stop();
    EXPECT_EQ(NULL, ggml_backend_reg_by_name("test"));
    EXPECT_NE(NULL, strstr(log_buf, "incompatible API version"));
}

TEST(score_zero_refused) {
    char dir[PATH_MAX], path[PATH_MAX + 32];
    NEED_DL_DIR(dir, "score0");
    snprintf(path, sizeof(path), "%s/libggml-test.so", dir);
    size_t n_regs = ggml_backend_reg_count();
    log_start();
    EXPECT_EQ(NULL, ggml_backend_load(path));
    ggml_backend_load_all_from_path(dir);
    log_stop();
    EXPECT_NE(NULL, strstr(log_buf, "score 0"));
    EXPECT_EQ(n_regs, ggml_backend_reg_count());
}

TEST(load_all_from_path_finds_and_best_variant_wins) {
    char dir[PATH_MAX];
    NEED_DL_DIR(dir, "ok");
    size_t n_regs = ggml_backend_reg_count();
    ggml_backend_load_all_from_path(dir);
    ggml_backend_reg_t reg = ggml_backend_reg_by_name("test");
    ASSERT_NE(NULL, reg);
    EXPECT_EQ(n_regs + 1, ggml_backend_reg_count());
    ggml_backend_unload(reg);
    EXPECT_EQ(n_regs, ggml_backend_reg_count());

    NEED_DL_DIR(dir, "multi");
    ggml_backend_load_all_from_path(dir);
    reg = ggml_backend_reg_by_name("test");
    ASSERT_NE(NULL, reg);
    EXPECT_STREQ("hi", ggml_backend_dev_description(ggml_backend_reg_dev_get(reg, 0)));
    ggml_backend_unload(reg);
    EXPECT_EQ(n_regs, ggml_backend_reg_count());
}

// A directory with the soname link of a backend (libggml-test.so.0) and a
// file named like a registered backend (libggml-cpu.so, here a library that
// would log "score 0" if opened): the first is loaded, the second never
// opened, as an installed libggml-cpu.so beside libggml.so is not.
TEST(load_all_soname_links_and_registered_names) {
    char dir[PATH_MAX];
    NEED_DL_DIR(dir, "links");
    size_t n_regs = ggml_backend_reg_count();
    log_start();
    ggml_backend_load_all_from_path(dir);
    log_stop();
    EXPECT_EQ(NULL, strstr(log_buf, "score 0")) TH_LOG("%s", log_buf);
    ggml_backend_reg_t reg = ggml_backend_reg_by_name("test");
    ASSERT_NE(NULL, reg);
    EXPECT_EQ(n_regs + 1, ggml_backend_reg_count());
    ggml_backend_unload(reg);
    EXPECT_EQ(n_regs, ggml_backend_reg_count());
}

TEST(env_backend_dir_and_path) {
    char dir[PATH_MAX], path[PATH_MAX + 32];
    NEED_DL_DIR(dir, "ok");
    size_t n_regs = ggml_backend_reg_count();

    setenv("GGML_BACKEND_DIR", dir, 1);
    ggml_backend_load_all();
    unsetenv("GGML_BACKEND_DIR");
    ggml_backend_reg_t reg = ggml_backend_reg_by_name("test");
    ASSERT_NE(NULL, reg);
    ggml_backend_unload(reg);

    // GGML_BACKEND_PATH names one library outside the searched directories
    NEED_DL_DIR(dir, "multi");
    snprintf(path, sizeof(path), "%s/libggml-test-lo.so", dir);
    setenv("GGML_BACKEND_PATH", path, 1);
    NEED_DL_DIR(dir, "score0");
    log_start();
    ggml_backend_load_all_from_path(dir);
    log_stop();
    unsetenv("GGML_BACKEND_PATH");
    reg = ggml_backend_reg_by_name("test");
    ASSERT_NE(NULL, reg);
    EXPECT_STREQ("lo", ggml_backend_dev_description(ggml_backend_reg_dev_get(reg, 0)));
    ggml_backend_unload(reg);
    EXPECT_EQ(n_regs, ggml_backend_reg_count());
}

TEST_HARNESS_MAIN
