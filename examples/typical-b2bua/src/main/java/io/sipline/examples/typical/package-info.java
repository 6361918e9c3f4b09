/**
 * A B2BUA written as applications usually are, against the standard API only: the realistic case of the load
 * harness, beside the minimal {@code b2bua} example.
 */
package io.sipline.examples.typical;
