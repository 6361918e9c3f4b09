package io.sipline.bench.overload;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import io.sipline.bench.calls.Scenarios;

/**
 * The caller of an overload run: sipp's built-in {@code uac} (its messages unchanged, as in {@code bench calls}) that
 * also takes a {@code 503} to its INVITE. The 503 must carry {@code Retry-After} (RFC 3261 §21.5.4, §20.33): sipp
 * checks it ({@code ereg ... check_it}), and a 503 without it fails the call, counted by sipp as
 * {@code FailedRegexpHdrNotFound}. A refused call is ACKed as a non-2xx final response is (RFC 3261 §17.1.1.3: the
 * INVITE's Via and branch, the 503's To tag, CSeq 1 ACK) and ends; the call's messages keep their own columns in
 * sipp's counts file ({@code -trace_counts}), so that refused and completed calls are told apart there. Stateless.
 */
public final class SurgeScenario
{
    /** The built-in uac's last optional provisional response, after which the 503 is taken. */
    static final String LAST_PROVISIONAL = "<recv response=\"183\" optional=\"true\">\n  </recv>";
    /** The built-in uac's 200 to its BYE, after which the refused calls' branch is placed. */
    static final String BYE_ANSWERED = "<recv response=\"200\" crlf=\"true\">\n  </recv>";

    private SurgeScenario()
    {
    }

    /** Writes the caller's scenario into {@code dir} ({@code uac-surge.xml}) and returns its path. */
    public static Path write(final Path dir) throws IOException, InterruptedException
    {
        final Path file = dir.resolve("uac-surge.xml");
        Files.createDirectories(dir);
        Files.writeString(file, derive(Scenarios.builtIn("uac")), StandardCharsets.ISO_8859_1);
        return file;
    }

    /** The built-in uac {@code uac} with the 503 branch. */
    static String derive(final String uac)
    {
        for (final String anchor : new String[] {LAST_PROVISIONAL, BYE_ANSWERED})
        {
            if (1 != count(uac, anchor))
            {
                throw new IllegalStateException("this sipp's built-in uac does not have one '" + anchor
                    + "': cannot add the 503 branch (sipp 3.6 expected)");
            }
        }
        return uac.replace(LAST_PROVISIONAL, LAST_PROVISIONAL + """

              <!-- sipline bench overload: a refused call; its 503 must say when to retry -->
              <recv response="503" optional="true" next="refused">
                <action>
                  <ereg regexp="[0-9]+" search_in="hdr" header="Retry-After:" check_it="true"
                        assign_to="retry_after"/>
                  <log message="503 Retry-After [$retry_after]"/>
                </action>
              </recv>""")
            .replace(BYE_ANSWERED, BYE_ANSWERED + """

              <nop next="ended"/>
              <label id="refused"/>
              <send>
                <![CDATA[
                  ACK sip:[service]@[remote_ip]:[remote_port] SIP/2.0
                  [last_Via:]
                  From: sipp <sip:sipp@[local_ip]:[local_port]>;tag=[pid]SIPpTag00[call_number]
                  [last_To:]
                  Call-ID: [call_id]
                  CSeq: 1 ACK
                  Max-Forwards: 70
                  Content-Length: 0
                ]]>
              </send>
              <label id="ended"/>""");
    }

    private static int count(final String text, final String what)
    {
        int n = 0;
        for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + what.length()))
        {
            n++;
        }
        return n;
    }
}
