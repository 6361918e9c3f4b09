/*
 * srtp_oracle: libsrtp 2 driven over stdin/stdout, the interoperability oracle of SrtpLibsrtpInteropTest.
 *
 * Built by the test itself:  gcc -O2 -Wall -o target/srtp_oracle src/test/c/srtp_oracle.c -lsrtp2
 *
 * One command per line, one answer line per command (stdout is flushed after each answer):
 *
 *   version                                  -> "ok <libsrtp version string>"
 *   new <slot> <suite> <send|recv> <key-hex> [<mki-hex>]
 *                                            -> "ok" | "unsupported <status>" | "err <status>"
 *       slot 0..7; suite as in SDP (AES_CM_128_HMAC_SHA1_80, ..., AEAD_AES_256_GCM); key-hex is
 *       master key || master salt. A send slot protects any outbound SSRC, a recv slot unprotects
 *       any inbound SSRC (libsrtp's ssrc_any_outbound / ssrc_any_inbound templates), window 128.
 *   rtp  <slot> <hex>                        -> "ok <hex>" | "err <status>"   protect (send) or unprotect (recv)
 *   rtcp <slot> <hex>                        -> "ok <hex>" | "err <status>"
 *   quit
 *
 * <status> is libsrtp's srtp_err_status_t as a number (7 auth_fail, 9 replay_fail, 10 replay_old, ...).
 * Written against libsrtp's public header srtp2/srtp.h only.
 */
#include <srtp2/srtp.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS 8
#define MAX_PACKET 8192
#define MAX_LINE (4 * MAX_PACKET + 256)

typedef struct
{
    srtp_t session;
    int sending;
    int use_mki;
} slot_t;

static slot_t slots[SLOTS];
static char line[MAX_LINE];
static unsigned char packet[MAX_PACKET + SRTP_MAX_TRAILER_LEN + 64];

static int unhex(const char *hex, unsigned char *out, int max)
{
    int n = 0;
    while (hex[0] && hex[1] && hex[0] != '\n' && hex[0] != ' ')
    {
        unsigned int v;
        if (n >= max || sscanf(hex, "%2x", &v) != 1)
        {
            return -1;
        }
        out[n++] = (unsigned char)v;
        hex += 2;
    }
    return n;
}

static void print_hex(const unsigned char *data, int len)
{
    static const char digits[] = "0123456789abcdef";
    fputs("ok ", stdout);
    for (int i = 0; i < len; i++)
    {
        putchar(digits[data[i] >> 4]);
        putchar(digits[data[i] & 15]);
    }
    putchar('\n');
}

/* Sets both crypto policies for an SDP suite name; returns 0 if the name is unknown. */
static int set_suite(const char *suite, srtp_policy_t *policy)
{
    if (0 == strcmp(suite, "AES_CM_128_HMAC_SHA1_80"))
    {
        srtp_crypto_policy_set_aes_cm_128_hmac_sha1_80(&policy->rtp);
        srtp_crypto_policy_set_aes_cm_128_hmac_sha1_80(&policy->rtcp);
    }
    else if (0 == strcmp(suite, "AES_CM_128_HMAC_SHA1_32"))
    {
        /* RFC 3711 section 7.5: the 32-bit tag is for SRTP only; SRTCP keeps 80 bits. */
        srtp_crypto_policy_set_aes_cm_128_hmac_sha1_32(&policy->rtp);
        srtp_crypto_policy_set_aes_cm_128_hmac_sha1_80(&policy->rtcp);
    }
    else if (0 == strcmp(suite, "AES_192_CM_HMAC_SHA1_80"))
    {
        srtp_crypto_policy_set_aes_cm_192_hmac_sha1_80(&policy->rtp);
        srtp_crypto_policy_set_aes_cm_192_hmac_sha1_80(&policy->rtcp);
    }
    else if (0 == strcmp(suite, "AES_192_CM_HMAC_SHA1_32"))
    {
        srtp_crypto_policy_set_aes_cm_192_hmac_sha1_32(&policy->rtp);
        srtp_crypto_policy_set_aes_cm_192_hmac_sha1_80(&policy->rtcp);
    }
    else if (0 == strcmp(suite, "AES_256_CM_HMAC_SHA1_80"))
    {
        srtp_crypto_policy_set_aes_cm_256_hmac_sha1_80(&policy->rtp);
        srtp_crypto_policy_set_aes_cm_256_hmac_sha1_80(&policy->rtcp);
    }
    else if (0 == strcmp(suite, "AES_256_CM_HMAC_SHA1_32"))
    {
        srtp_crypto_policy_set_aes_cm_256_hmac_sha1_32(&policy->rtp);
        srtp_crypto_policy_set_aes_cm_256_hmac_sha1_80(&policy->rtcp);
    }
    else if (0 == strcmp(suite, "AEAD_AES_128_GCM"))
    {
        srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy->rtp);
        srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy->rtcp);
    }
    else if (0 == strcmp(suite, "AEAD_AES_256_GCM"))
    {
        srtp_crypto_policy_set_aes_gcm_256_16_auth(&policy->rtp);
        srtp_crypto_policy_set_aes_gcm_256_16_auth(&policy->rtcp);
    }
    else
    {
        return 0;
    }
    return 1;
}

static void cmd_new(char *args)
{
    static unsigned char keys[SLOTS][64];
    static unsigned char mkis[SLOTS][SRTP_MAX_MKI_LEN];
    static srtp_master_key_t master[SLOTS];
    static srtp_master_key_t *master_list[SLOTS][1];

    char suite[64];
    char direction[8];
    char key_hex[160];
    char mki_hex[2 * SRTP_MAX_MKI_LEN + 2];
    int slot;
    mki_hex[0] = 0;
    const int fields = sscanf(args, "%d %63s %7s %159s %257s", &slot, suite, direction, key_hex, mki_hex);
    if (fields < 4 || slot < 0 || slot >= SLOTS)
    {
        puts("err usage");
        return;
    }
    if (NULL != slots[slot].session)
    {
        srtp_dealloc(slots[slot].session);
        slots[slot].session = NULL;
    }

    srtp_policy_t policy;
    memset(&policy, 0, sizeof(policy));
    if (!set_suite(suite, &policy))
    {
        puts("unsupported unknown-suite");
        return;
    }
    const int key_len = unhex(key_hex, keys[slot], sizeof(keys[slot]));
    if (key_len <= 0)
    {
        puts("err bad-key");
        return;
    }
    slots[slot].sending = 0 == strcmp(direction, "send");
    policy.ssrc.type = slots[slot].sending ? ssrc_any_outbound : ssrc_any_inbound;
    policy.window_size = 128;
    policy.allow_repeat_tx = 0;
    policy.next = NULL;
    slots[slot].use_mki = 0;
    if (fields == 5 && mki_hex[0])
    {
        const int mki_len = unhex(mki_hex, mkis[slot], sizeof(mkis[slot]));
        if (mki_len <= 0)
        {
            puts("err bad-mki");
            return;
        }
        master[slot].key = keys[slot];
        master[slot].mki_id = mkis[slot];
        master[slot].mki_size = (unsigned int)mki_len;
        master_list[slot][0] = &master[slot];
        policy.keys = master_list[slot];
        policy.num_master_keys = 1;
        slots[slot].use_mki = 1;
    }
    else
    {
        policy.key = keys[slot];
    }

    const srtp_err_status_t status = srtp_create(&slots[slot].session, &policy);
    if (srtp_err_status_ok != status)
    {
        slots[slot].session = NULL;
        /* A suite this libsrtp was built without (e.g. GCM without a crypto library) fails here. */
        printf("unsupported %d\n", (int)status);
        return;
    }
    puts("ok");
}

static void cmd_packet(char *args, const int rtcp)
{
    int slot;
    char *hex = NULL;
    slot = (int)strtol(args, &hex, 10);
    if (slot < 0 || slot >= SLOTS || NULL == slots[slot].session || NULL == hex)
    {
        puts("err no-slot");
        return;
    }
    while (' ' == *hex)
    {
        hex++;
    }
    int len = unhex(hex, packet, MAX_PACKET);
    if (len < 0)
    {
        puts("err bad-hex");
        return;
    }
    const slot_t *s = &slots[slot];
    srtp_err_status_t status;
    if (s->sending)
    {
        status = rtcp
            ? srtp_protect_rtcp_mki(s->session, packet, &len, s->use_mki, 0)
            : srtp_protect_mki(s->session, packet, &len, s->use_mki, 0);
    }
    else
    {
        status = rtcp
            ? srtp_unprotect_rtcp_mki(s->session, packet, &len, s->use_mki)
            : srtp_unprotect_mki(s->session, packet, &len, s->use_mki);
    }
    if (srtp_err_status_ok != status)
    {
        printf("err %d\n", (int)status);
        return;
    }
    print_hex(packet, len);
}

int main(void)
{
    if (srtp_err_status_ok != srtp_init())
    {
        puts("err init");
        return 1;
    }
    while (NULL != fgets(line, sizeof(line), stdin))
    {
        if (0 == strncmp(line, "new ", 4))
        {
            cmd_new(line + 4);
        }
        else if (0 == strncmp(line, "rtp ", 4))
        {
            cmd_packet(line + 4, 0);
        }
        else if (0 == strncmp(line, "rtcp ", 5))
        {
            cmd_packet(line + 5, 1);
        }
        else if (0 == strncmp(line, "version", 7))
        {
            printf("ok %s\n", srtp_get_version_string());
        }
        else if (0 == strncmp(line, "quit", 4))
        {
            break;
        }
        else
        {
            puts("err unknown-command");
        }
        fflush(stdout);
    }
    for (int i = 0; i < SLOTS; i++)
    {
        if (NULL != slots[i].session)
        {
            srtp_dealloc(slots[i].session);
        }
    }
    srtp_shutdown();
    return 0;
}
