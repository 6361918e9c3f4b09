package io.sipline.media.dtls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class DtlsSetupTest
{
    @Test
    void shouldParseTheRfc4145Tokens()
    {
        assertEquals(DtlsSetup.ACTPASS, DtlsSetup.parse("actpass"));
        assertEquals(DtlsSetup.ACTIVE, DtlsSetup.parse(" Active "));
        assertEquals(DtlsSetup.PASSIVE, DtlsSetup.parse("passive"));
        assertEquals(DtlsSetup.HOLDCONN, DtlsSetup.parse("holdconn"));
        assertNull(DtlsSetup.parse("both"));
        assertNull(DtlsSetup.parse(null));
        assertEquals("actpass", DtlsSetup.ACTPASS.sdpValue());
    }

    @Test
    void shouldAnswerAsRfc5763Section5Says()
    {
        // The answerer SHOULD take the active role when offered actpass.
        assertEquals(DtlsSetup.ACTIVE, DtlsSetup.ACTPASS.answer());
        assertEquals(DtlsRole.CLIENT, DtlsSetup.ACTPASS.answer().role());
        assertEquals(DtlsSetup.PASSIVE, DtlsSetup.ACTIVE.answer());
        assertEquals(DtlsRole.SERVER, DtlsSetup.ACTIVE.answer().role());
        assertEquals(DtlsSetup.ACTIVE, DtlsSetup.PASSIVE.answer());
        assertThrows(IllegalArgumentException.class, DtlsSetup.HOLDCONN::answer);
    }

    @Test
    void shouldGiveTheOffererTheRoleTheAnswerLeaves()
    {
        assertEquals(DtlsRole.SERVER, DtlsSetup.offererRole(DtlsSetup.ACTIVE));
        assertEquals(DtlsRole.CLIENT, DtlsSetup.offererRole(DtlsSetup.PASSIVE));
        // RFC 4145 §4: actpass is for offers only.
        assertThrows(IllegalArgumentException.class, () -> DtlsSetup.offererRole(DtlsSetup.ACTPASS));
        assertThrows(IllegalArgumentException.class, () -> DtlsSetup.offererRole(DtlsSetup.HOLDCONN));
        assertThrows(IllegalArgumentException.class, DtlsSetup.ACTPASS::role);
    }
}
