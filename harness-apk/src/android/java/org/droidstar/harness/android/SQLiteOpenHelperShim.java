package org.droidstar.harness.android;

import android.content.Context;
import android.database.DatabaseErrorHandler;
import android.database.sqlite.SQLiteDatabase;
import android.database.sqlite.SQLiteOpenHelper;

import org.droidstar.harness.core.ShimContext;

/**
 * Shim for android.database.sqlite.SQLiteOpenHelper(context, name, factory,
 * version[, errorHandler]): reports onConfigure, onCreate, onUpgrade and
 * onDowngrade (detail "OLD->NEW", for example "1->2") and onOpen. onCreate
 * and onUpgrade change nothing in the database.
 *
 * onDowngrade keeps the framework's behaviour after reporting: it throws
 * SQLiteException ("Can't downgrade database"), so that getWritableDatabase()
 * on a newer database fails as it does for an app that does not override
 * it. Shim option downgrade=accept makes it return normally instead.
 */
public class SQLiteOpenHelperShim extends SQLiteOpenHelper {
    private final ShimContext ctx;

    public SQLiteOpenHelperShim(ShimContext ctx, Context context, String name,
            SQLiteDatabase.CursorFactory factory, int version) {
        super(context, name, factory, version);
        this.ctx = ctx;
    }

    public SQLiteOpenHelperShim(ShimContext ctx, Context context, String name,
            SQLiteDatabase.CursorFactory factory, int version, DatabaseErrorHandler errorHandler) {
        super(context, name, factory, version, errorHandler);
        this.ctx = ctx;
    }

    @Override
    public void onConfigure(SQLiteDatabase db) {
        ctx.callback("onConfigure", null, new Object[] {db});
    }

    @Override
    public void onCreate(SQLiteDatabase db) {
        ctx.callback("onCreate", null, new Object[] {db});
    }

    @Override
    public void onUpgrade(SQLiteDatabase db, int oldVersion, int newVersion) {
        ctx.callback("onUpgrade", oldVersion + "->" + newVersion,
                new Object[] {db, Integer.valueOf(oldVersion), Integer.valueOf(newVersion)});
    }

    @Override
    public void onDowngrade(SQLiteDatabase db, int oldVersion, int newVersion) {
        ctx.callback("onDowngrade", oldVersion + "->" + newVersion,
                new Object[] {db, Integer.valueOf(oldVersion), Integer.valueOf(newVersion)});
        if (!"accept".equals(ctx.option("downgrade", ""))) {
            super.onDowngrade(db, oldVersion, newVersion);
        }
    }

    @Override
    public void onOpen(SQLiteDatabase db) {
        ctx.callback("onOpen", null, new Object[] {db});
    }
}
