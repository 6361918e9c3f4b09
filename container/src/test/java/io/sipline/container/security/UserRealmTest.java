package io.sipline.container.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class UserRealmTest
{
    private static final String REALM = "sip.example.com";

    @Test
    void shouldReadPlainAndDigestUsersWithRolesCommentsAndBlankLines() throws Exception
    {
        final String md5 = DigestAlgorithm.MD5.ha1("bob", REALM, "pw:with:colons");
        final String sha = DigestAlgorithm.SHA_256.ha1("bob", REALM, "pw:with:colons");
        final UserRealm realm = UserRealm.parse("users.txt", new StringReader(
            "# users\n" +
            "\n" +
            "alice:plain:Circle Of Life:caller, admin\n" +
            "   # indented comment\n" +
            "bob:digest:" + REALM + ":MD5=" + md5.toUpperCase() + ", SHA-256=" + sha + "\n" +
            "bob:digest:other.example.com:MD5=" + DigestAlgorithm.MD5.ha1("bob", "other.example.com", "x") +
            ":operator\n" +
            "dave:plain: spaced :\n"));

        assertEquals(3, realm.size());
        assertEquals(DigestAlgorithm.SHA_256.ha1("alice", "any.realm", "Circle Of Life"),
            realm.ha1("alice", "any.realm", DigestAlgorithm.SHA_256));
        assertEquals(Set.of("caller", "admin"), realm.roles("alice", REALM));
        assertEquals(md5, realm.ha1("bob", REALM, DigestAlgorithm.MD5));
        assertEquals(sha, realm.ha1("bob", REALM, DigestAlgorithm.SHA_256));
        assertNull(realm.ha1("bob", REALM, DigestAlgorithm.SHA_512_256));
        assertEquals(Set.of(), realm.roles("bob", REALM));
        assertEquals(Set.of("operator"), realm.roles("bob", "other.example.com"));
        assertNull(realm.ha1("bob", "third.example.com", DigestAlgorithm.MD5));
        assertEquals(DigestAlgorithm.MD5.ha1("dave", REALM, " spaced "), realm.ha1("dave", REALM, DigestAlgorithm.MD5));
        assertNull(realm.ha1("nobody", REALM, DigestAlgorithm.MD5));
        assertNull(realm.ha1(null, REALM, DigestAlgorithm.MD5));
    }

    @Test
    void shouldRefuseAMalformedLineWithItsNumberAndReason()
    {
        final String md5 = DigestAlgorithm.MD5.ha1("bob", REALM, "x");
        final String[][] cases = {
            {"alice", "expected NAME:plain"},
            {"alice:plain", "expected NAME:plain"},
            {"alice:clear:pw", "'plain' or 'digest'"},
            {"alice:plain::caller", "empty password"},
            {"alice:plain:pw:caller:extra", "may not contain ':'"},
            {":plain:pw", "empty user name"},
            {" alice:plain:pw", "blanks around"},
            {"al\"ice:plain:pw", "quote"},
            {"alice:plain:pw:caller,,admin", "empty role"},
            {"bob:digest:" + REALM, "expected NAME:digest"},
            {"bob:digest::MD5=" + md5, "empty realm"},
            {"bob:digest:" + REALM + ":" + md5, "expected ALGORITHM=HA1"},
            {"bob:digest:" + REALM + ":MD5-sess=" + md5, "unknown algorithm"},
            {"bob:digest:" + REALM + ":SHA-256=" + md5, "64 hex digits"},
            {"bob:digest:" + REALM + ":MD5=" + md5.replace('a', 'x').replace('0', 'z') + "", "32 hex digits"},
            {"bob:digest:" + REALM + ":MD5=" + md5 + ",MD5=" + md5, "given twice"},
        };
        for (final String[] c : cases)
        {
            final UsersFileException ex = assertThrows(UsersFileException.class,
                () -> UserRealm.parse("users.txt", new StringReader("# header\n" + c[0] + "\n")), c[0]);
            assertEquals(2, ex.line(), c[0]);
            assertTrue(ex.reason().contains(c[1]), c[0] + " -> " + ex.getMessage());
            assertTrue(ex.getMessage().startsWith("users.txt:2: "), ex.getMessage());
        }
    }

    @Test
    void shouldRefuseAUserDefinedTwice()
    {
        final String md5 = DigestAlgorithm.MD5.ha1("bob", REALM, "x");
        final String[] files = {
            "alice:plain:a\nalice:plain:b\n",
            "bob:digest:" + REALM + ":MD5=" + md5 + "\nbob:digest:" + REALM + ":MD5=" + md5 + "\n",
            "bob:digest:" + REALM + ":MD5=" + md5 + "\nbob:plain:x\n",
            "bob:plain:x\nbob:digest:" + REALM + ":MD5=" + md5 + "\n",
        };
        for (final String file : files)
        {
            final UsersFileException ex = assertThrows(UsersFileException.class,
                () -> UserRealm.parse("u", new StringReader(file)), file);
            assertEquals(2, ex.line());
            assertTrue(ex.reason().contains("already defined") && ex.reason().contains("line 1"), ex.reason());
        }
    }

    @Test
    void shouldLoadAFileAndNameItInErrors(@TempDir final Path dir) throws Exception
    {
        final Path good = dir.resolve("users");
        Files.writeString(good, "alice:plain:pw:caller\n");
        assertEquals(1, UserRealm.load(good).size());

        final Path bad = dir.resolve("bad-users");
        Files.writeString(bad, "alice:plain:pw\nbroken\n");
        final UsersFileException ex = assertThrows(UsersFileException.class, () -> UserRealm.load(bad));
        assertEquals(bad + ":2: " + ex.reason(), ex.getMessage());

        final UsersFileException missing = assertThrows(UsersFileException.class,
            () -> UserRealm.load(dir.resolve("absent")));
        assertEquals(UsersFileException.NO_LINE, missing.line());
        assertTrue(missing.getMessage().contains("cannot read"), missing.getMessage());
        assertEquals(0, UserRealm.empty().size());
    }
}
