package io.sipline.container.dispatch;

import java.util.function.LongSupplier;

import io.sipline.sip.message.SipMethod;
import io.sipline.sip.transaction.Admission;

/**
 * Overload control of one shard, as the stack asks it ({@link Admission}): before a request makes a transaction, its
 * wait since the kernel received it is a sample for the checks, and a new request (outside a dialog, not a CANCEL)
 * is refused when the waits say the shard is overloaded and it waited past the target ({@link OverloadControl}), when
 * it is an INVITE past the admission limit ({@link AdmissionLimit}), a REGISTER past its budget, or another non-INVITE
 * request (OPTIONS, MESSAGE, SUBSCRIBE, ...) past theirs ({@link RequestBudget}). The stack then answers it
 * {@code 503} with {@code Retry-After} without a transaction; requests within dialogs, CANCELs and ACKs are never
 * refused, so that the calls already up finish. Calls completed (the ACK of a 2xx) are the admission limit's measure
 * ({@link #completed}).
 * <p>
 * Threading: not threadsafe; owned by the shard's event loop (one instance per shard). No allocation, no lock per
 * request: a clock read, the checks' few fields, and the container's refusal counter.
 */
final class ShardAdmission implements Admission
{
    private final OverloadControl overload;
    /** Null: no admission limit. */
    private final AdmissionLimit limit;
    /** Null: no REGISTER budget. */
    private final RequestBudget registers;
    /** Null: no budget for the other new non-INVITE requests. */
    private final RequestBudget others;
    /** The wall clock of the receive times ({@code RealtimeClock#nanos()}; a test's own clock in tests). */
    private final LongSupplier wallClock;
    private final ContainerShardImpl.Counters counters;

    ShardAdmission(final OverloadControl overload, final AdmissionLimit limit, final RequestBudget registers,
        final RequestBudget others, final LongSupplier wallClock, final ContainerShardImpl.Counters counters)
    {
        this.overload = overload;
        this.limit = limit;
        this.registers = registers;
        this.others = others;
        this.wallClock = wallClock;
        this.counters = counters;
    }

    @Override
    public boolean admit(final SipMethod method, final boolean initial, final long receivedAtNanos)
    {
        final long nowNs = wallClock.getAsLong();
        boolean late = false;
        if (0 != receivedAtNanos)
        {
            final long waitNs = nowNs - receivedAtNanos;
            if (null != limit)
            {
                limit.onWait(waitNs, nowNs);
            }
            if (null != registers)
            {
                registers.onWait(waitNs, nowNs);
            }
            if (null != others)
            {
                others.onWait(waitNs, nowNs);
            }
            late = overload.onRequest(receivedAtNanos, nowNs);
        }
        if (!initial)
        {
            return true;
        }
        final boolean admitted = !late && switch (method)
        {
            case INVITE -> null == limit || limit.admit(nowNs);
            case REGISTER -> null == registers || registers.admit(nowNs);
            default -> null == others || others.admit(nowNs);
        };
        if (!admitted)
        {
            counters.overloaded.incrementAndGet();
        }
        return admitted;
    }

    /** A call of this shard completed: its caller acknowledged a 2xx to its INVITE. */
    void completed()
    {
        if (null != limit)
        {
            limit.onCompleted(wallClock.getAsLong());
        }
    }
}
