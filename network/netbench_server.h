/* netbench's server mode (`netbench server`): its options and its run until a signal. */
#ifndef NETBENCH_SERVER_H
#define NETBENCH_SERVER_H

/* The control port a server listens on and a client asks, unless --port says otherwise. */
#define NETBENCH_DEFAULT_PORT 5301

/* `netbench server [options]`: ARGV[0] is "server"; returns the exit status (peak_exit.h). */
int netbench_server_main(int argc, char **argv);

#endif
