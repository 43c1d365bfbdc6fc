import type { Db } from "../../db/client.ts";
import { updateUserImageModel } from "../../db/repositories/users.ts";
import { invalidRequest, notFound } from "../../errors.ts";
import { IMAGE_MODEL_IDS } from "./models.ts";

/**
 * Sets an account's preferred image model (`null` returns it to the default).
 * @returns the stored preference.
 * @throws AppError 400 `invalid_request` at `/imageModel` naming the allowed ids when `imageModel`
 *   is not one of them; 404 when the user does not exist.
 */
export async function setImageModelPreference(
  db: Db,
  userId: string,
  imageModel: string | null,
): Promise<string | null> {
  if (imageModel !== null && !IMAGE_MODEL_IDS.includes(imageModel)) {
    throw invalidRequest(`Unknown image model ${JSON.stringify(imageModel)}`, [
      {
        path: "/imageModel",
        message: `must be one of ${IMAGE_MODEL_IDS.join(", ")} (or null for the default)`,
      },
    ]);
  }
  const row = await updateUserImageModel(db, userId, imageModel);
  if (!row) throw notFound(`User ${userId}`);
  return row.imageModel;
}
