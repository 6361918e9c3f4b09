package io.sipline.container.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The {@code --config FILE} of {@code sipline run}: one {@code key = value} per line, whose keys are the long options
 * of {@code sipline run} without their {@code --} ({@code port = 5060}, {@code bind = 0.0.0.0},
 * {@code deploy = ../webapps}). Blank lines and lines starting with {@code #} are ignored. An option that takes several
 * values may be repeated ({@code deploy}) or take a comma list where the flag does ({@code bind}); a relative path of
 * an option whose value is a {@code FILE} or {@code PATH} is resolved against the configuration file's directory.
 *
 * <p>The file becomes command-line arguments placed before the real ones; an option given on the command line
 * replaces the file's value (all of its values, for a repeated one). A key that is no option, a line without
 * {@code =}, and a single-valued key given twice are refused with one line naming the file, the line and the key.
 *
 * <p>Not threadsafe; used once, on the main thread, before the command line is parsed.
 */
final class ConfigFile
{
    /** The option naming this file: never a key of it. */
    static final String OPTION = "--config";

    /** Where each option given by the file came from, to name the file's line in a value error. */
    private final Map<String, String> origins = new HashMap<>();
    private final List<String> arguments = new ArrayList<>();

    private ConfigFile()
    {
    }

    /** A refused configuration file: the message is the one line to print, file and line included. */
    static final class ConfigFileException extends Exception
    {
        private static final long serialVersionUID = 1L;

        ConfigFileException(final String message)
        {
            super(message);
        }
    }

    /** The file's arguments, then {@code commandLine}'s. */
    List<String> arguments()
    {
        return arguments;
    }

    /**
     * Where the file set {@code option} (its longest name), as {@code FILE:LINE}, or null when the file did not set
     * it.
     */
    String origin(final OptionSpec option)
    {
        return origins.get(option.longestName());
    }

    /**
     * The value of {@code --config} in {@code args} ({@code --config FILE} or {@code --config=FILE}), or null.
     */
    static String find(final List<String> args)
    {
        for (int i = 0; i < args.size(); i++)
        {
            final String a = args.get(i);
            if ("--".equals(a))
            {
                return null;
            }
            if (a.startsWith(OPTION + "="))
            {
                return a.substring(OPTION.length() + 1);
            }
            if (OPTION.equals(a) && i + 1 < args.size())
            {
                return args.get(i + 1);
            }
        }
        return null;
    }

    /**
     * Reads {@code file} against the options of {@code run} and merges it with {@code commandLine}.
     *
     * @param commandLine the arguments of {@code run} as given, {@code --config} included.
     * @throws ConfigFileException naming the file, the line and what is wrong.
     */
    static ConfigFile load(final String file, final CommandSpec run, final List<String> commandLine)
        throws ConfigFileException
    {
        final Path path;
        final List<String> lines;
        try
        {
            path = Path.of(file).toAbsolutePath().normalize();
            lines = Files.readAllLines(path, StandardCharsets.UTF_8);
        }
        catch (final InvalidPathException e)
        {
            throw new ConfigFileException(OPTION + ": '" + file + "' is not a valid path");
        }
        catch (final IOException e)
        {
            throw new ConfigFileException(OPTION + ": " + file + (Files.isDirectory(Path.of(file)) ?
                " is a directory, not a file" : Files.exists(Path.of(file)) ? " cannot be read" : " does not exist"));
        }
        final Set<String> given = givenOptions(run, commandLine);
        final ConfigFile config = new ConfigFile();
        final Map<String, Integer> seenAt = new LinkedHashMap<>();
        for (int i = 0; i < lines.size(); i++)
        {
            final String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#"))
            {
                continue;
            }
            final String where = file + ":" + (i + 1);
            final int eq = line.indexOf('=');
            if (eq < 0)
            {
                throw new ConfigFileException(where + ": expected 'key = value', not '" + line + "'");
            }
            final String key = line.substring(0, eq).strip().toLowerCase(Locale.ROOT);
            final String value = line.substring(eq + 1).strip();
            final OptionSpec option = option(run, key, where);
            final Integer before = seenAt.putIfAbsent(option.longestName(), i + 1);
            if (null != before && !option.isMultiValue())
            {
                throw new ConfigFileException(where + ": key '" + key + "' is already set on line " + before);
            }
            if (given.contains(option.longestName()))
            {
                continue; // the command line wins
            }
            config.origins.putIfAbsent(option.longestName(), where);
            config.add(option, key, resolve(option, value, path), where);
        }
        config.arguments.addAll(commandLine);
        return config;
    }

    /** Adds the option's arguments: {@code --key value}, or {@code --key} alone for a flag set to true. */
    private void add(final OptionSpec option, final String key, final String value, final String where)
        throws ConfigFileException
    {
        if (0 == option.arity().max())
        {
            if ("true".equalsIgnoreCase(value))
            {
                arguments.add(option.longestName());
            }
            else if (!"false".equalsIgnoreCase(value))
            {
                throw new ConfigFileException(where + ": key '" + key + "' takes true or false, not '" + value + "'");
            }
            return;
        }
        arguments.add(option.longestName() + "=" + value);
    }

    /** The option {@code --key} of {@code run}, or a refusal naming the key and the keys there are. */
    private static OptionSpec option(final CommandSpec run, final String key, final String where)
        throws ConfigFileException
    {
        final OptionSpec option = key.startsWith("-") ? null : run.optionsMap().get("--" + key);
        if (null == option || option.usageHelp() || option.versionHelp() || OPTION.equals(option.longestName()))
        {
            throw new ConfigFileException(where + ": unknown key '" + key + "'; the keys are the options of "
                + "sipline run without their --: " + String.join(", ", keys(run)));
        }
        return option;
    }

    /** The keys a configuration file may set. */
    static Set<String> keys(final CommandSpec run)
    {
        final Set<String> keys = new TreeSet<>();
        for (final OptionSpec option : run.options())
        {
            if (!option.usageHelp() && !option.versionHelp() && !OPTION.equals(option.longestName())
                && option.longestName().startsWith("--"))
            {
                keys.add(option.longestName().substring(2));
            }
        }
        return keys;
    }

    /** A relative {@code FILE} or {@code PATH} value against the configuration file's directory. */
    private static String resolve(final OptionSpec option, final String value, final Path file)
    {
        final String label = option.paramLabel();
        if (value.isEmpty() || !("FILE".equals(label) || "PATH".equals(label)))
        {
            return value;
        }
        try
        {
            final Path p = Path.of(value);
            return p.isAbsolute() ? value : file.getParent().resolve(p).normalize().toString();
        }
        catch (final InvalidPathException e)
        {
            return value; // refused by the option itself, with the flag's message
        }
    }

    /** The longest names of the options {@code commandLine} gives (up to a {@code --}). */
    private static Set<String> givenOptions(final CommandSpec run, final List<String> commandLine)
    {
        final Set<String> given = new TreeSet<>();
        for (final String a : commandLine)
        {
            if ("--".equals(a))
            {
                break;
            }
            if (!a.startsWith("-"))
            {
                continue;
            }
            final int eq = a.indexOf('=');
            final OptionSpec option = run.optionsMap().get(eq < 0 ? a : a.substring(0, eq));
            if (null != option)
            {
                given.add(option.longestName());
            }
        }
        return given;
    }
}
