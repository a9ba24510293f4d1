// SPDX-License-Identifier: GPL-2.0
/*
 * insn-mark: the guest's side of the insn-count plugin (plugin.c).
 *
 *   insn-mark begin | end   start or end a counted run
 *   insn-mark loop N        a run of N turns of a two-instruction loop in
 *                           user space: the plugin must count 2N + a few
 *   insn-mark syscalls N    a run of N getppid() system calls: the kernel
 *                           function that serves them must count the same
 *                           instructions per call at any N
 *   insn-mark udp N ADDR    a run of N 64-byte UDP datagrams to IPv4 ADDR,
 *                           port 9 (discard): the transmit path's count
 *                           must grow with N
 *
 * The marks are NOPs on any x86 CPU; only the plugin gives them meaning.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

static void mark_begin(void)
{
	asm volatile(".byte 0x0f, 0x1f, 0x80, 0x01, 0xc0, 0xb1, 0x5a" ::: "memory");
}

static void mark_end(void)
{
	asm volatile(".byte 0x0f, 0x1f, 0x80, 0x02, 0xc0, 0xb1, 0x5a" ::: "memory");
}

static unsigned long count_arg(const char *s)
{
	unsigned long n;
	char *end;

	errno = 0;
	n = strtoul(s, &end, 10);
	if (errno || *end || !*s || n == 0 || n > 1000000000UL) {
		fprintf(stderr, "insn-mark: '%s' is not a count of 1 to 10^9\n", s);
		exit(2);
	}
	return n;
}

static int udp_run(unsigned long n, const char *addr)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(9) };
	char payload[64] = { 0 };
	int fd;

	if (inet_pton(AF_INET, addr, &to.sin_addr) != 1) {
		fprintf(stderr, "insn-mark: '%s' is not an IPv4 address\n", addr);
		return 2;
	}
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0) {
		perror("insn-mark: socket");
		return 1;
	}
	mark_begin();
	while (n--) {
		if (sendto(fd, payload, sizeof(payload), 0,
			   (struct sockaddr *)&to, sizeof(to)) < 0) {
			mark_end();
			perror("insn-mark: sendto");
			return 1;
		}
	}
	mark_end();
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long n;

	if (argc == 2 && !strcmp(argv[1], "begin")) {
		mark_begin();
	} else if (argc == 2 && !strcmp(argv[1], "end")) {
		mark_end();
	} else if (argc == 3 && !strcmp(argv[1], "loop")) {
		n = count_arg(argv[2]);
		mark_begin();
		/* two instructions a turn, one translated block */
		asm volatile("1: dec %0\n\tjnz 1b" : "+r"(n));
		mark_end();
	} else if (argc == 3 && !strcmp(argv[1], "syscalls")) {
		n = count_arg(argv[2]);
		mark_begin();
		while (n--)
			syscall(SYS_getppid);
		mark_end();
	} else if (argc == 4 && !strcmp(argv[1], "udp")) {
		return udp_run(count_arg(argv[2]), argv[3]);
	} else {
		fprintf(stderr, "usage: insn-mark begin|end|loop N|syscalls N|udp N ADDR\n");
		return 2;
	}
	return 0;
}
