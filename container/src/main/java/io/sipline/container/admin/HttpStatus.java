package io.sipline.container.admin;

import java.util.List;

/**
 * What {@code /metrics} reads of the web engine that serves the HTTP halves of converged applications
 * ({@code --http-port}): per application, the requests answered by status class, the requests that failed and those
 * being served. The web engine implements it from counters it keeps on its own threads.
 * <p>
 * Called on the admin server's thread at each scrape; implementations read counters without a lock and may
 * allocate (scrape time, not the SIP path).
 */
public interface HttpStatus
{
    /** The status classes of {@link Application#responses}, by index. */
    List<String> STATUS_CLASSES = List.of("1xx", "2xx", "3xx", "4xx", "5xx");

    /** The applications served, and {@code none} for requests outside every application's context path. */
    List<Application> applications();

    /** The counts of one application's web half. */
    interface Application
    {
        /** Its name ({@code app-name}), or {@code none}. */
        String name();

        /** Requests answered with a status of class {@code STATUS_CLASSES.get(index)} since the engine started. */
        long responses(int index);

        /** Requests that ended without a complete response: an exception past the engine, a broken connection. */
        long failed();

        /** Requests being served now. */
        long active();
    }
}
