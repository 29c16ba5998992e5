// SPDX-License-Identifier: MIT
/*
 * Utilities: version, status strings, logging, abort callback, GUIDs, time.
 */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test-harness.h"

#include "ggml.h"
#include "ggml-impl.h"

TEST(version_and_commit)
{
	const char *v = ggml_version();

	ASSERT_NE(NULL, v);
	/* "major.minor.patch" */
	int a, b, c;
	EXPECT_EQ(3, sscanf(v, "%d.%d.%d", &a, &b, &c)) TH_LOG("version '%s'", v);
	ASSERT_NE(NULL, ggml_commit());
	EXPECT_GT(strlen(ggml_commit()), 0);
}

TEST(status_strings)
{
	enum ggml_status all[] = { GGML_STATUS_ALLOC_FAILED, GGML_STATUS_FAILED,
				   GGML_STATUS_SUCCESS, GGML_STATUS_ABORTED };

	EXPECT_EQ(-2, GGML_STATUS_ALLOC_FAILED);
	EXPECT_EQ(-1, GGML_STATUS_FAILED);
	EXPECT_EQ(0, GGML_STATUS_SUCCESS);
	EXPECT_EQ(1, GGML_STATUS_ABORTED);
	for (int i = 0; i < 4; i++) {
		ASSERT_NE(NULL, ggml_status_to_string(all[i]));
		for (int j = 0; j < i; j++) {
			EXPECT_STRNE(ggml_status_to_string(all[i]), ggml_status_to_string(all[j]));
		}
	}
	EXPECT_NE(NULL, strstr(ggml_status_to_string(GGML_STATUS_SUCCESS), "success"));
	EXPECT_NE(NULL, ggml_status_to_string((enum ggml_status)42));
}

struct captured {
	int calls;
	enum ggml_log_level level;
	char text[4096];
};

static void capture(enum ggml_log_level level, const char *text, void *user_data)
{
	struct captured *c = user_data;

	c->calls++;
	c->level = level;
	snprintf(c->text, sizeof(c->text), "%s", text);
}

TEST(log_set_get)
{
	struct captured c = { 0 };
	ggml_log_callback cb, def_cb;
	void *ud, *def_ud;
	char longmsg[1000];

	ggml_log_get(&def_cb, &def_ud);
	ASSERT_NE(NULL, def_cb);

	ggml_log_set(capture, &c);
	ggml_log_get(&cb, &ud);
	EXPECT_TRUE(cb == capture);
	EXPECT_TRUE(ud == &c);

	GGML_LOG_ERROR("%s: bad %d\n", "thing", 42);
	EXPECT_EQ(1, c.calls);
	EXPECT_EQ(GGML_LOG_LEVEL_ERROR, c.level);
	EXPECT_STREQ("thing: bad 42\n", c.text);
	GGML_LOG_WARN("w");
	EXPECT_EQ(GGML_LOG_LEVEL_WARN, c.level);

	/* messages longer than the internal buffer arrive whole */
	memset(longmsg, 'x', sizeof(longmsg) - 1);
	longmsg[sizeof(longmsg) - 1] = 0;
	GGML_LOG_INFO("%s", longmsg);
	EXPECT_EQ(strlen(longmsg), strlen(c.text));

	/* NULL restores the default */
	ggml_log_set(NULL, NULL);
	ggml_log_get(&cb, &ud);
	EXPECT_TRUE(cb == def_cb);
}

/* what the default (stderr) logger prints with GGML_LOG_LEVEL=env */
static void default_log_output(const char *env, char *out, size_t size)
{
	FILE *tmp = tmpfile();
	int saved = dup(2);
	size_t n;

	if (env)
		setenv("GGML_LOG_LEVEL", env, 1);
	else
		unsetenv("GGML_LOG_LEVEL");
	ggml_log_reset_threshold_internal();
	fflush(stderr);
	dup2(fileno(tmp), 2);
	GGML_LOG_DEBUG("D");
	ggml_log_internal(GGML_LOG_LEVEL_CONT, "d");
	GGML_LOG_INFO("I");
	ggml_log_internal(GGML_LOG_LEVEL_CONT, "i");
	GGML_LOG_WARN("W");
	GGML_LOG_ERROR("E");
	GGML_LOG("N");
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	n = fread(out, 1, size - 1, tmp);
	out[n] = 0;
	fclose(tmp);
	unsetenv("GGML_LOG_LEVEL");
	ggml_log_reset_threshold_internal();
}

TEST(default_log_level)
{
	char out[512];

	ggml_log_set(NULL, NULL);
	/* debug lines (and their continuations) are hidden unless asked for */
	default_log_output(NULL, out, sizeof(out));
	EXPECT_STREQ("IiWEN", out);
	default_log_output("debug", out, sizeof(out));
	EXPECT_STREQ("DdIiWEN", out);
	default_log_output("warn", out, sizeof(out));
	EXPECT_STREQ("WEN", out);
	default_log_output("error", out, sizeof(out));
	EXPECT_STREQ("EN", out);
	/* plain output (GGML_LOG, e.g. ggml_graph_print) is never hidden */
	default_log_output("none", out, sizeof(out));
	EXPECT_STREQ("N", out);
	/* an unknown value says so and keeps the default */
	default_log_output("loud", out, sizeof(out));
	EXPECT_NE(NULL, strstr(out, "GGML_LOG_LEVEL=loud not understood"));
	EXPECT_NE(NULL, strstr(out, "IiWEN"));
}

static int abort_pipe = -1;

static void abort_to_pipe(const char *msg)
{
	ssize_t n = write(abort_pipe, msg, strlen(msg));
	(void)n;
}

TEST(abort_callback)
{
	int fds[2], status;
	char buf[512] = { 0 };
	pid_t pid;

	ASSERT_TRUE(ggml_set_abort_callback(NULL) == NULL);
	ASSERT_EQ(0, pipe(fds));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		close(fds[0]);
		abort_pipe = fds[1];
		ggml_set_abort_callback(abort_to_pipe);
		/* the previous one is returned */
		if (ggml_set_abort_callback(abort_to_pipe) != abort_to_pipe)
			_exit(3);
		GGML_ABORT("fatal %s %d", "error", 7);
	}
	close(fds[1]);
	ssize_t n = read(fds[0], buf, sizeof(buf) - 1);
	close(fds[0]);
	ASSERT_GT(n, 0);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status));
	if (WIFSIGNALED(status)) {
		EXPECT_EQ(SIGABRT, WTERMSIG(status));
	}
	EXPECT_NE(NULL, strstr(buf, "fatal error 7")) TH_LOG("message '%s'", buf);
	EXPECT_NE(NULL, strstr(buf, "test-util.c:")) TH_LOG("message '%s'", buf);
}

/* GGML_ASSERT goes through ggml_abort(): message, then SIGABRT. (The
 * harness reserves SIGABRT for its own assertions, hence the manual fork.)
 */
TEST(assert_aborts)
{
	int status;
	pid_t pid = fork();

	ASSERT_GE(pid, 0);
	if (pid == 0) {
		int x = 1;

		/* the message is expected: keep it out of the test log */
		if (!freopen("/dev/null", "w", stderr))
			_exit(4);
		ggml_set_abort_callback(NULL);
		GGML_ASSERT(x == 2);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSIGNALED(status));
	EXPECT_EQ(SIGABRT, WTERMSIG(status));
}

TEST(guid_matches)
{
	ggml_guid a = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
	ggml_guid b;

	memcpy(b, a, sizeof(a));
	EXPECT_TRUE(ggml_guid_matches(&a, &b));
	b[15] ^= 1;
	EXPECT_FALSE(ggml_guid_matches(&a, &b));
	b[15] ^= 1;
	b[0] ^= 0x80;
	EXPECT_FALSE(ggml_guid_matches(&a, &b));
}

TEST(time_is_monotonic)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	int64_t t0, t1, m0, m1;

	ggml_time_init();
	ggml_time_init();
	t0 = ggml_time_us();
	m0 = ggml_time_ms();
	nanosleep(&ts, NULL);
	t1 = ggml_time_us();
	m1 = ggml_time_ms();
	EXPECT_GE(t1 - t0, 20000);
	EXPECT_LT(t1 - t0, 5000000);
	EXPECT_GE(m1 - m0, 19);
	EXPECT_GT(ggml_cycles_per_ms(), 0);
	EXPECT_GE(ggml_cycles(), 0);
}

TEST(fopen_utf8_path)
{
	char path[] = "/tmp/ggml-fopen-XXXXXX";
	int fd = mkstemp(path);
	FILE *f;

	ASSERT_GE(fd, 0);
	close(fd);
	f = ggml_fopen(path, "w");
	ASSERT_NE(NULL, f);
	fputs("ok", f);
	fclose(f);
	unlink(path);
	EXPECT_EQ(NULL, ggml_fopen("/nonexistent/dir/file", "r"));
}

TEST_HARNESS_MAIN
