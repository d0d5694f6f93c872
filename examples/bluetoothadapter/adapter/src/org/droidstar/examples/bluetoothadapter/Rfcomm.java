package org.droidstar.examples.bluetoothadapter;

import android.bluetooth.BluetoothAdapter;
import android.bluetooth.BluetoothDevice;
import android.bluetooth.BluetoothSocket;

import java.io.IOException;
import java.util.UUID;

/**
 * The connect callin of examples/bluetoothadapter/purpose.yaml: an RFCOMM
 * connection to one paired device, closed at once, as DroidStar's purpose
 * connected. Argument literals cannot reach a remote device (it comes from
 * the adapter) or make a UUID, so this does it; the purpose calls it on the
 * constant CONNECTOR with the instance under test and two strings.
 */
public final class Rfcomm {
    /** The object connect is called on. */
    public static final Rfcomm CONNECTOR = new Rfcomm();

    private Rfcomm() {
    }

    /**
     * Connects to the service uuid of the device with address mac and
     * closes the socket. Bringing the link up is what makes the system
     * broadcast ACTION_ACL_CONNECTED; a failed connection throws, so the
     * callin answers err.
     */
    public void connect(BluetoothAdapter adapter, String mac, String uuid) throws IOException {
        BluetoothDevice device = adapter.getRemoteDevice(mac);
        BluetoothSocket socket = device.createRfcommSocketToServiceRecord(UUID.fromString(uuid));
        // discovery slows a connection down (BluetoothSocket.connect's documentation)
        adapter.cancelDiscovery();
        try {
            socket.connect();
        } finally {
            socket.close();
        }
    }
}
