package io.sipline.sip.dialog;

import java.util.ArrayList;
import java.util.List;

/** Records terminations as "remoteTag:REASON" (the record is recycled right after the call, so copy now). */
final class RecordingListener implements DialogListener
{
    final List<String> ended = new ArrayList<>();
    final List<Dialog> records = new ArrayList<>();

    @Override
    public void onDialogTerminated(final Dialog dialog, final DialogEndReason reason)
    {
        ended.add(dialog.remoteTag() + ":" + reason);
        records.add(dialog);
    }
}
