/*
 * A QEMU TCG plugin that counts the guest's executed instructions, and snapshots the count
 * each time the guest enters one function (the firmware's board_mark): the instructions
 * between two marks are what the code between them cost. Loaded by run.sh --count:
 *
 *   qemu-system-arm ... -plugin insn-count.so,mark=0xADDRESS
 *
 * Prints "instructions total=N marks=A,B,..." when the guest exits.
 *
 * The few declarations below are QEMU's plugin interface (include/qemu/qemu-plugin.h, API
 * version 1, as QEMU 7.2 has it); Debian ships QEMU with plugin support but not the header.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
typedef struct qemu_info_t qemu_info_t;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb, enum qemu_plugin_op op, void *ptr,
                                              uint64_t imm);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb, qemu_plugin_vcpu_udata_cb_t cb,
                                          enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void *userdata);
void qemu_plugin_outs(const char *string);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

static uint64_t executed; /* one guest CPU: a plain counter */
static uint64_t mark_address = UINT64_MAX;
static uint64_t marks[16];
static int mark_count;

static void on_mark(unsigned int vcpu, void *userdata) {
    (void)vcpu; (void)userdata;
    if (mark_count < 16) marks[mark_count++] = executed;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
    (void)id;
    if (qemu_plugin_tb_vaddr(tb) == mark_address)
        qemu_plugin_register_vcpu_tb_exec_cb(tb, on_mark, QEMU_PLUGIN_CB_NO_REGS, NULL);
    qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &executed,
                                             qemu_plugin_tb_n_insns(tb));
}

static void on_guest_exit(qemu_plugin_id_t id, void *userdata) {
    (void)id; (void)userdata;
    char line[512];
    int n = snprintf(line, sizeof line, "instructions total=%" PRIu64 " marks=", executed);
    for (int i = 0; i < mark_count && n < (int)sizeof line - 24; i++)
        n += snprintf(line + n, sizeof line - n, "%s%" PRIu64, i ? "," : "", marks[i]);
    snprintf(line + n, sizeof line - n, "\n");
    qemu_plugin_outs(line);
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv) {
    (void)info;
    for (int i = 0; i < argc; i++) {
        if (strncmp(argv[i], "mark=", 5) == 0) mark_address = strtoull(argv[i] + 5, NULL, 0) & ~(uint64_t)1;
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
    qemu_plugin_register_atexit_cb(id, on_guest_exit, NULL);
    return 0;
}
