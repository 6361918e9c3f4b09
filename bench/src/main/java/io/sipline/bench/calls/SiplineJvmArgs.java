package io.sipline.bench.calls;

import java.util.ArrayList;
import java.util.List;

import picocli.CommandLine.Option;

/**
 * {@code --sipline-jvm-args}, as a picocli mixin of the bench commands that start a Sipline process ({@code bench
 * calls}, {@code bench media}): JVM options added after the profile's and the harness's own, so that one run can
 * compare a flag (a flight recording, an object layout) against the same build without it. Only Sipline's process
 * gets them, never a baseline's.
 *
 * <p>Not threadsafe; filled by picocli and read by the command's thread.
 */
public final class SiplineJvmArgs
{
    @Option(names = "--sipline-jvm-args", paramLabel = "ARGS", split = " ",
        description = "more JVM options of Sipline's process, space-separated, after the profile's "
            + "(e.g. a flight recording, -XX:-UseCompactObjectHeaders)")
    List<String> args;

    /** @return the options given, empty when none. */
    public List<String> list()
    {
        return null == args ? List.of() : List.copyOf(args);
    }

    /** @return {@code first} (the harness's own options for this process), then the options given. */
    public List<String> after(final List<String> first)
    {
        final List<String> all = new ArrayList<>(first);
        all.addAll(list());
        return all;
    }

    /** @return the option as typed on a command line, with a leading blank; empty when none was given. */
    public String describe()
    {
        return null == args ? "" : " --sipline-jvm-args '" + String.join(" ", args) + "'";
    }
}
