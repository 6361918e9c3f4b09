package io.sipline.container.naming;

/**
 * A {@code @Resource} that cannot be satisfied: its message is one line naming the class, the member and the reason,
 * e.g. {@code @Resource com.example.Proxy.limit: java:comp/env/maxCalls is not bound (application 'proxy' binds
 * [...])}. The deployer adds the archive's name and refuses the application.
 * <p>
 * Threading: an ordinary exception, confined to the thread that throws it.
 */
public final class InjectionException extends Exception
{
    private static final long serialVersionUID = 1L;

    /**
     * @param className the class that declares the member.
     * @param member    the field, or the setter as {@code name()}.
     * @param reason    why it cannot be injected.
     * @param cause     the underlying failure, or {@code null}.
     */
    public InjectionException(final String className, final String member, final String reason,
        final Throwable cause)
    {
        super("@Resource " + className + '.' + member + ": " + reason, cause);
    }
}
