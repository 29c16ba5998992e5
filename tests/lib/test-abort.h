// SPDX-License-Identifier: MIT
//
// expect_abort(): runs fn in a child process and reports whether it ended
// in ggml_abort() with a message containing want. The kselftest harness
// reserves SIGABRT for its own assertions, so the child's abort callback
// passes the message up a pipe and exits instead.
#ifndef TEST_ABORT_H
#define TEST_ABORT_H

#include "ggml.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int abort_pipe_fd = -1;

static void abort_to_pipe(const char * message) {
    size_t n = strlen(message);
    if (write(abort_pipe_fd, message, n) != (ssize_t) n) {
        _exit(3);
    }
    _exit(42);
}

static bool expect_abort(void (*fn)(void), const char * want) {
    int fds[2];
    if (pipe(fds) != 0) {
        return false;
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        abort_pipe_fd = fds[1];
        ggml_set_abort_callback(abort_to_pipe);
        fn();
        _exit(0); // returned: no abort
    }
    close(fds[1]);
    char buf[2048] = { 0 };
    size_t got = 0;
    ssize_t r;
    while (got < sizeof(buf) - 1 && (r = read(fds[0], buf + got, sizeof(buf) - 1 - got)) > 0) {
        got += (size_t) r;
    }
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 42) {
        fprintf(stderr, "# expected an abort with \"%s\", child status 0x%x\n", want, status);
        return false;
    }
    if (strstr(buf, want) == NULL) {
        fprintf(stderr, "# abort message \"%s\" lacks \"%s\"\n", buf, want);
        return false;
    }
    return true;
}

#endif // TEST_ABORT_H
