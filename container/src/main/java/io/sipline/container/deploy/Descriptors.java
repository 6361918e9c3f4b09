package io.sipline.container.deploy;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Small helpers shared by the deployment model.
 * <p>
 * Threading: stateless.
 */
final class Descriptors
{
    private Descriptors()
    {
    }

    /**
     * @param map a map or {@code null}.
     * @return an unmodifiable copy that keeps the iteration order.
     */
    static <K, V> Map<K, V> freeze(final Map<K, V> map)
    {
        if (null == map || map.isEmpty())
        {
            return Map.of();
        }
        return Collections.unmodifiableMap(new LinkedHashMap<>(map));
    }
}
