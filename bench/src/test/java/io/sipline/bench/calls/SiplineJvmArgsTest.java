package io.sipline.bench.calls;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;

import picocli.CommandLine;

/** {@code --sipline-jvm-args} as {@code bench calls} parses it: split on blanks, after the harness's own options. */
class SiplineJvmArgsTest
{
    @Test
    void shouldAddTheOptionsGivenAfterTheHarnessOwn()
    {
        final CallsBench bench = new CallsBench();
        new CommandLine(bench).parseArgs("--sipline-jvm-args", "-XX:+UseCompactObjectHeaders -Dx=1");
        assertEquals(List.of("-XX:-UseTLAB", "-XX:+UseCompactObjectHeaders", "-Dx=1"),
            bench.siplineJvmArgs.after(List.of("-XX:-UseTLAB")));
        assertEquals(" --sipline-jvm-args '-XX:+UseCompactObjectHeaders -Dx=1'", bench.siplineJvmArgs.describe());
    }

    @Test
    void shouldAddNothingWhenNoneIsGiven()
    {
        final CallsBench bench = new CallsBench();
        new CommandLine(bench).parseArgs("--rate", "100");
        assertEquals(List.of("-XX:-UseTLAB"), bench.siplineJvmArgs.after(List.of("-XX:-UseTLAB")));
        assertEquals("", bench.siplineJvmArgs.describe());
    }
}
