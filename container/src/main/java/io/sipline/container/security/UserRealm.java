package io.sipline.container.security;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The users digest authentication checks against, read from a users file (the server's users flag; the format is
 * in {@code docs/operations.md}). UTF-8, one user per line, fields separated by {@code :}; blank lines and
 * {@code #} comments are ignored:
 * <pre>
 * NAME:plain:PASSWORD[:ROLES]                                    any realm, any algorithm
 * NAME:digest:REALM:ALGORITHM=HA1[,ALGORITHM=HA1...][:ROLES]     that realm, those algorithms only
 * </pre>
 * A {@code plain} password is kept in memory exactly as written (spaces included; no {@code :}, not empty). A
 * {@code digest} line stores only {@code HA1 = H(NAME ":" REALM ":" PASSWORD)} (RFC 2617 §3.2.2.2) per algorithm
 * ({@code MD5}, {@code SHA-256}, {@code SHA-512-256}) in hex of the algorithm's length; clients pick SHA-256 when
 * offered (RFC 8760 §2.4). {@code ROLES} are comma-separated JSR 289 {@code role-name}s. A name is non-empty,
 * without {@code :}, {@code "}, control characters or surrounding blanks, and appears once, except in {@code digest}
 * lines for different realms. Any other shape is refused with the file, the line number and the reason
 * ({@link UsersFileException}).
 * <p>
 * Threading: immutable once built; shared by every shard.
 */
public final class UserRealm
{
    private static final UserRealm EMPTY = new UserRealm(Map.of());

    /** Users by name. */
    private final Map<String, User> users;

    private UserRealm(final Map<String, User> users)
    {
        this.users = users;
    }

    /**
     * @return a realm without users (every authentication fails).
     */
    public static UserRealm empty()
    {
        return EMPTY;
    }

    /**
     * @param file the users file.
     * @return its users.
     * @throws UsersFileException when it cannot be read or a line is malformed.
     */
    public static UserRealm load(final Path file) throws UsersFileException
    {
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8))
        {
            return parse(file.toString(), reader);
        }
        catch (final IOException ex)
        {
            throw new UsersFileException(file.toString(), UsersFileException.NO_LINE, "cannot read: " + ex, ex);
        }
    }

    /**
     * @param source the file name for error messages.
     * @param text   the file's content.
     * @return its users.
     * @throws UsersFileException when a line is malformed.
     * @throws IOException        when {@code text} cannot be read.
     */
    public static UserRealm parse(final String source, final Reader text) throws UsersFileException, IOException
    {
        final Map<String, User> users = new HashMap<>();
        final BufferedReader reader = new BufferedReader(text);
        int lineNumber = 0;
        for (String line = reader.readLine(); null != line; line = reader.readLine())
        {
            lineNumber++;
            final String trimmed = line.strip();
            if (trimmed.isEmpty() || trimmed.startsWith("#"))
            {
                continue;
            }
            final Entry entry = parseLine(source, lineNumber, line);
            final User previous = users.get(entry.name);
            if (null == previous)
            {
                final User user = new User(entry.name);
                user.add(entry);
                users.put(entry.name, user);
            }
            else
            {
                final String clash = previous.clash(entry);
                if (null != clash)
                {
                    throw new UsersFileException(source, lineNumber, clash, null);
                }
                previous.add(entry);
            }
        }
        return new UserRealm(Map.copyOf(users));
    }

    /**
     * @return the number of distinct user names.
     */
    public int size()
    {
        return users.size();
    }

    /**
     * @param name      the user name.
     * @param realm     the realm.
     * @param algorithm the algorithm.
     * @return {@code HA1} in lowercase hex for this user in this realm, or {@code null} when the user is unknown, is
     *     not in this realm, or has no HA1 for this algorithm.
     */
    String ha1(final String name, final String realm, final DigestAlgorithm algorithm)
    {
        final User user = null == name ? null : users.get(name);
        if (null == user)
        {
            return null;
        }
        final Entry entry = user.entryFor(realm);
        if (null == entry)
        {
            return null;
        }
        if (null != entry.password)
        {
            return algorithm.ha1(name, realm, entry.password);
        }
        return entry.ha1.get(algorithm);
    }

    /**
     * @param name  the user name.
     * @param realm the realm.
     * @return the roles of this user in this realm (empty when unknown).
     */
    Set<String> roles(final String name, final String realm)
    {
        final User user = users.get(name);
        final Entry entry = null == user ? null : user.entryFor(realm);
        return null == entry ? Set.of() : entry.roles;
    }

    private static Entry parseLine(final String source, final int lineNumber, final String line)
        throws UsersFileException
    {
        final String[] fields = line.split(":", -1);
        if (fields.length < 3)
        {
            throw new UsersFileException(source, lineNumber,
                "expected NAME:plain:PASSWORD[:ROLES] or NAME:digest:REALM:ALGORITHM=HA1[,...][:ROLES]", null);
        }
        final String name = fields[0].strip();
        checkName(source, lineNumber, name, fields[0]);
        final String kind = fields[1].strip().toLowerCase(Locale.ROOT);
        return switch (kind)
        {
            case "plain" -> plain(source, lineNumber, name, fields);
            case "digest" -> digest(source, lineNumber, name, fields);
            default -> throw new UsersFileException(source, lineNumber,
                "the second field must be 'plain' or 'digest', not '" + fields[1].strip() + "'", null);
        };
    }

    private static Entry plain(final String source, final int lineNumber, final String name, final String[] fields)
        throws UsersFileException
    {
        if (fields.length > 4)
        {
            throw new UsersFileException(source, lineNumber,
                "too many ':' fields for NAME:plain:PASSWORD[:ROLES] (a plain password may not contain ':')", null);
        }
        final String password = fields[2];
        if (password.isEmpty())
        {
            throw new UsersFileException(source, lineNumber, "empty password for user '" + name + "'", null);
        }
        final Set<String> roles = fields.length == 4 ? roles(source, lineNumber, fields[3]) : Set.of();
        return new Entry(name, null, password, Map.of(), roles, lineNumber);
    }

    private static Entry digest(final String source, final int lineNumber, final String name, final String[] fields)
        throws UsersFileException
    {
        if (fields.length < 4 || fields.length > 5)
        {
            throw new UsersFileException(source, lineNumber,
                "expected NAME:digest:REALM:ALGORITHM=HA1[,ALGORITHM=HA1...][:ROLES]", null);
        }
        final String realm = fields[2].strip();
        if (realm.isEmpty())
        {
            throw new UsersFileException(source, lineNumber, "empty realm for user '" + name + "'", null);
        }
        final Map<DigestAlgorithm, String> hashes = new EnumMap<>(DigestAlgorithm.class);
        for (final String item : fields[3].split(",", -1))
        {
            final String pair = item.strip();
            final int equals = pair.indexOf('=');
            if (equals <= 0)
            {
                throw new UsersFileException(source, lineNumber, "expected ALGORITHM=HA1, found '" + pair + "'", null);
            }
            final String token = pair.substring(0, equals).strip();
            final DigestAlgorithm algorithm = DigestAlgorithm.fromToken(token);
            if (null == algorithm)
            {
                throw new UsersFileException(source, lineNumber,
                    "unknown algorithm '" + token + "' (MD5, SHA-256 or SHA-512-256)", null);
            }
            final String hex = pair.substring(equals + 1).strip().toLowerCase(Locale.ROOT);
            if (hex.length() != algorithm.hexLength() || !isHex(hex))
            {
                throw new UsersFileException(source, lineNumber,
                    "the " + algorithm.token() + " HA1 must be " + algorithm.hexLength() + " hex digits", null);
            }
            if (null != hashes.put(algorithm, hex))
            {
                throw new UsersFileException(source, lineNumber, algorithm.token() + " given twice", null);
            }
        }
        final Set<String> roles = fields.length == 5 ? roles(source, lineNumber, fields[4]) : Set.of();
        return new Entry(name, realm, null, Map.copyOf(hashes), roles, lineNumber);
    }

    private static void checkName(final String source, final int lineNumber, final String name, final String raw)
        throws UsersFileException
    {
        if (name.isEmpty())
        {
            throw new UsersFileException(source, lineNumber, "empty user name", null);
        }
        if (!name.equals(raw))
        {
            throw new UsersFileException(source, lineNumber, "blanks around the user name '" + name + "'", null);
        }
        for (int i = 0; i < name.length(); i++)
        {
            final char c = name.charAt(i);
            if ('"' == c || Character.isISOControl(c))
            {
                throw new UsersFileException(source, lineNumber,
                    "the user name contains a quote or a control character", null);
            }
        }
    }

    private static Set<String> roles(final String source, final int lineNumber, final String field)
        throws UsersFileException
    {
        if (field.isBlank())
        {
            return Set.of();
        }
        final Set<String> roles = new LinkedHashSet<>();
        for (final String item : field.split(",", -1))
        {
            final String role = item.strip();
            if (role.isEmpty())
            {
                throw new UsersFileException(source, lineNumber, "empty role name in '" + field.strip() + "'", null);
            }
            roles.add(role);
        }
        return Set.copyOf(roles);
    }

    private static boolean isHex(final String text)
    {
        for (int i = 0; i < text.length(); i++)
        {
            final char c = text.charAt(i);
            if (!(('0' <= c && c <= '9') || ('a' <= c && c <= 'f')))
            {
                return false;
            }
        }
        return true;
    }

    /**
     * One line: a plain password for any realm ({@code realm == null}) or the HA1s for one realm.
     */
    private record Entry(
        String name,
        String realm,
        String password,
        Map<DigestAlgorithm, String> ha1,
        Set<String> roles,
        int line)
    {
    }

    /** The lines of one user name. */
    private static final class User
    {
        private final String name;
        private Entry anyRealm;
        private final Map<String, Entry> byRealm = new HashMap<>();

        User(final String name)
        {
            this.name = name;
        }

        String clash(final Entry entry)
        {
            if (null != anyRealm)
            {
                return "user '" + name + "' already defined at line " + anyRealm.line;
            }
            if (null == entry.realm)
            {
                return "user '" + name + "' already defined at line " + byRealm.values().iterator().next().line;
            }
            final Entry previous = byRealm.get(entry.realm);
            return null == previous ? null :
                "user '" + name + "' already defined for realm '" + entry.realm + "' at line " + previous.line;
        }

        void add(final Entry entry)
        {
            if (null == entry.realm)
            {
                anyRealm = entry;
            }
            else
            {
                byRealm.put(entry.realm, entry);
            }
        }

        Entry entryFor(final String realm)
        {
            return null != anyRealm ? anyRealm : byRealm.get(realm);
        }
    }
}
