/*
 * commands.h — the subcommands of the skss CLI. Each cmd_<name>.c defines
 * one of these; main.c dispatches on argv[1]. argv[0] is the subcommand's
 * name. Each returns a sysexits.h code (EX_OK = 0 on success).
 */
#ifndef SKSS_CLI_COMMANDS_H
#define SKSS_CLI_COMMANDS_H

int skss_cmd_info(int argc, char **argv);
int skss_cmd_halftone(int argc, char **argv);
int skss_cmd_sat(int argc, char **argv);
int skss_cmd_boxfilter(int argc, char **argv);
int skss_cmd_knapsack(int argc, char **argv);
int skss_cmd_compact(int argc, char **argv);
int skss_cmd_align(int argc, char **argv);
int skss_cmd_bench(int argc, char **argv);
int skss_cmd_demo(int argc, char **argv);

#endif
