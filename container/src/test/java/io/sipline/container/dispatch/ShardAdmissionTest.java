package io.sipline.container.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;

import org.junit.jupiter.api.Test;

import io.sipline.sip.message.SipMethod;

/**
 * {@link ShardAdmission}, the shard's overload decision as the stack asks it, with a clock the test moves: the waits'
 * target 30 ms over intervals of 100 ms, the admission limit (25%, pressure above 10 ms), a REGISTER budget of 50 a
 * bucket and one of 20 for the other new non-INVITE requests. A registration storm or an OPTIONS scan on a loaded
 * shard is held to its budget while the calls beside it are let in; requests within dialogs are never refused;
 * nothing is allocated per request.
 */
class ShardAdmissionTest
{
    private static final long MS = 1_000_000L;
    private static final long BUCKET = 100 * MS;
    private static final long START = 1_700_000_000_000_000_000L;

    private long now = START;
    private final ContainerShardImpl.Counters counters = new ContainerShardImpl.Counters();
    private final ShardAdmission admission = new ShardAdmission(new OverloadControl(30 * MS, BUCKET),
        new AdmissionLimit(BUCKET, 10 * MS, 25), new RequestBudget(BUCKET, 10 * MS, 50),
        new RequestBudget(BUCKET, 10 * MS, 20), () -> now, counters);

    @Test
    void shouldHoldAnOptionsScanToTheOtherRequestsBudgetApartFromTheRegistrations()
    {
        for (int bucket = 0; bucket < 20; bucket++)
        {
            int options = 0;
            int messages = 0;
            int registers = 0;
            // 1,000 OPTIONS, 50 MESSAGEs and 50 REGISTERs a bucket, each having waited 20 ms: pressure
            for (int i = 0; i < 1_100; i++)
            {
                now += BUCKET / 1_100;
                final SipMethod method = i < 1_000 ? SipMethod.OPTIONS
                    : 0 == i % 2 ? SipMethod.MESSAGE : SipMethod.REGISTER;
                if (admission.admit(method, true, now - 20 * MS))
                {
                    options += SipMethod.OPTIONS == method ? 1 : 0;
                    messages += SipMethod.MESSAGE == method ? 1 : 0;
                    registers += SipMethod.REGISTER == method ? 1 : 0;
                }
            }
            assertTrue(options + messages <= 21, "bucket " + bucket + ": OPTIONS and MESSAGE share their budget: "
                + options + " + " + messages);
            assertTrue(registers >= 49, "bucket " + bucket + ": the REGISTERs keep their own budget: " + registers);
        }
    }

    @Test
    void shouldHoldARegistrationStormToItsBudgetAndLetTheCallsIn()
    {
        for (int bucket = 0; bucket < 20; bucket++)
        {
            int registers = 0;
            int invites = 0;
            // 2,000 REGISTERs and 100 INVITEs a bucket, each having waited 20 ms: pressure, but not overload
            for (int i = 0; i < 2_100; i++)
            {
                now += BUCKET / 2_100;
                final boolean invite = 0 == i % 21;
                if (admission.admit(invite ? SipMethod.INVITE : SipMethod.REGISTER, true, now - 20 * MS))
                {
                    if (invite)
                    {
                        invites++;
                        admission.completed();
                    }
                    else
                    {
                        registers++;
                    }
                }
            }
            assertEquals(100, invites, "bucket " + bucket + ": every call let in");
            assertTrue(registers <= 51, "bucket " + bucket + ": REGISTERs within their budget: " + registers);
        }
        assertTrue(counters.overloaded.get() >= 20 * 1_949, "refusals counted: " + counters.overloaded.get());
    }

    @Test
    void shouldNeverRefuseWithinADialogNorLetALateNewRequestInWhileOverloaded()
    {
        // Waits of 50 ms standing for more than an interval: overloaded
        for (int i = 0; i < 200; i++)
        {
            now += MS;
            admission.admit(SipMethod.BYE, false, now - 50 * MS);
        }
        assertTrue(admission.admit(SipMethod.BYE, false, now - 50 * MS), "in-dialog: served");
        assertTrue(admission.admit(SipMethod.INVITE, false, now - 50 * MS), "a re-INVITE: served");
        assertFalse(admission.admit(SipMethod.INVITE, true, now - 50 * MS), "a new INVITE that waited 50 ms");
        assertFalse(admission.admit(SipMethod.OPTIONS, true, now - 50 * MS), "a new OPTIONS that waited 50 ms");
        assertTrue(admission.admit(SipMethod.INVITE, true, now - 5 * MS), "a new INVITE within the target");
        assertTrue(admission.admit(SipMethod.INVITE, true, 0), "no receive time: no sample, never late");
        assertEquals(2, counters.overloaded.get());
    }

    @Test
    void shouldAllocateNothingPerRequest()
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        final long thread = Thread.currentThread().threadId();
        run(100_000); // warm up
        final long before = threads.getThreadAllocatedBytes(thread);
        run(1_000_000);
        final long bytes = threads.getThreadAllocatedBytes(thread) - before;
        assertTrue(bytes < 1_000, "bytes allocated over 1,000,000 requests: " + bytes);
    }

    private void run(final int requests)
    {
        for (int i = 0; i < requests; i++)
        {
            now += 10_000;
            final SipMethod method = 0 == i % 3 ? SipMethod.INVITE : 1 == i % 3 ? SipMethod.REGISTER : SipMethod.BYE;
            if (admission.admit(method, SipMethod.BYE != method, now - i % 4 * 15 * MS) && SipMethod.INVITE == method)
            {
                admission.completed();
            }
        }
    }
}
