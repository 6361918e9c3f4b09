package io.sipline.container.api;

import java.util.ArrayList;
import java.util.EventListener;
import java.util.List;

import javax.servlet.ServletContext;
import javax.servlet.sip.B2buaHelper;
import javax.servlet.sip.SipServlet;

import io.sipline.container.security.DigestClient;

/** An application for unit tests: listeners given by the test, no servlets, a session timeout in minutes. */
public final class FakeApp implements RunningApplication
{
    public final List<EventListener> listeners = new ArrayList<>();
    public int timeoutMinutes = 3;
    private final DigestClient digest = new DigestClient();
    /** Where a distributable application's snapshots go; null: not distributable. */
    public io.sipline.container.replication.SnapshotSink replication;

    @Override
    public io.sipline.container.replication.SnapshotSink replication()
    {
        return replication;
    }

    @Override
    public String name()
    {
        return "fake";
    }

    @Override
    public ServletContext servletContext()
    {
        return null;
    }

    @Override
    public SipServlet servlet(final String name)
    {
        return null;
    }

    @Override
    public String defaultServlet()
    {
        return "main";
    }

    @Override
    public <T> List<T> listeners(final Class<T> type)
    {
        final List<T> out = new ArrayList<>();
        for (final EventListener l : listeners)
        {
            if (type.isInstance(l))
            {
                out.add(type.cast(l));
            }
        }
        return out;
    }

    @Override
    public int sessionTimeoutMinutes()
    {
        return timeoutMinutes;
    }

    @Override
    public ClassLoader classLoader()
    {
        return FakeApp.class.getClassLoader();
    }

    @Override
    public B2buaHelper b2buaHelper()
    {
        return null;
    }

    @Override
    public DigestClient digestClient()
    {
        return digest;
    }
}
